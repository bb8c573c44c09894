#!/usr/bin/env node
// Entry point. `wmem context` and `wmem hook` run on every prompt, `wmem compact` is timed against
// cp and `wmem search` against grep, so they go through lean entries first; everything else (and
// anything a lean entry does not recognise) goes to the full command line. All are built into
// dist/ by `npm install` (the prepare script).
// This file is CommonJS (bin/package.json says so): a per-prompt `wmem context` or `wmem hook`
// and `wmem compact` then never start Node's ES module loader (~10 ms on a slow machine, and an
// ES module import of node:fs loads node:stream), because their lean entries, dist/fast/fast.cjs,
// fast-hook.cjs, fast-compact.cjs and fast-search.cjs, are CommonJS too. The other entries and the full command
// line are ES modules, reached through import().
'use strict';
const args = process.argv.slice(2);

async function main() {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    // Answered before any bundle loads: scripts probe the version often.
    process.stdout.write(JSON.parse(require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'package.json'), 'utf8')).version + '\n');
    return;
  }
  if (await lean()) return;
  const { run } = await import('../dist/cli.js');
  await run(process.argv);
}

/** The lean entry for this command line; false when the full CLI should handle it. */
async function lean() {
  switch (args[0]) {
    case 'compact':
      // A quick cut is timed against cp, and the full CLI's loading shows.
      return require('../dist/fast/fast-compact.cjs').runCompact(process.argv);
    case 'search':
      // A search is timed against grep -rF over the same files: CommonJS too (no ES module loader).
      return require('../dist/fast/fast-search.cjs').runSearch(process.argv);
    case 'mcp':
      // A client times out on a slow server, and tools/list is answered before the MCP SDK has
      // loaded (dist/mcp/manifest.json holds the SDK server's own answers).
      return (await import('../dist/fast/fast-mcp.js')).runMcp(process.argv);
    case 'hook':
      // Every prompt and every tool call: the hook path in one CommonJS file (fast-hook.cjs), for
      // every agent's common events first without what they never load (first-hook.cjs; for a
      // tool call first-tool.cjs, without the context's rendering as well), which hands anything
      // it lacks to fast-hook.cjs. The choice here is a guess from the words: a wrong one costs
      // time, never an answer (src/entries/first-hook.ts decides what it serves).
      return hookEntry(firstStage());
    default:
      // `wmem context` (every prompt, in some setups): first from the session's answer cache (a
      // small file that reads it and stats what it was computed from), else the same entry as
      // the hooks without the hook moments, which it never runs (a smaller file to compile).
      if (args[0] === 'context' && require('../dist/fast/first.cjs').answerFromCache(args)) return true;
      return require('../dist/fast/fast.cjs').runFast(process.argv);
  }
}

/** Runs `wmem hook` through `stage` (a first stage's file), or the full hook entry. */
function hookEntry(stage) {
  let first;
  try {
    first = stage && require(`../dist/fast/${stage}`);
  } catch {
    first = undefined; // a first stage missing or broken (a partial copy of dist/): the full entry serves it
  }
  return first ? first.runHook(process.argv) : require('../dist/fast/fast-hook.cjs').runFast(process.argv);
}

/**
 * The hook's first stage for this command line, or undefined: an agent or event it does not serve.
 * dist/fast/first-routes.json (written by the build from every agent's events) says, for each
 * agent's id and alias, which of its events go to first-hook.cjs or first-tool.cjs; an event is
 * any word of the line, spelled as the agent's eventFor takes it (`post-tool-use`, `PostToolUse`).
 */
function firstStage() {
  const agent = args.findIndex((a) => a === '--agent' || a.startsWith('--agent='));
  const id = agent < 0 ? 'claude' : args[agent].startsWith('--agent=') ? args[agent].slice(8) : args[agent + 1];
  try {
    const routes = require('../dist/fast/first-routes.json');
    const key = String(id).trim().toLowerCase();
    const events = Object.hasOwn(routes, key) ? routes[key] : {};
    const event = args.map((word) => word.replace(/[-_\s]/g, '').toLowerCase()).find((word) => Object.hasOwn(events, word));
    return event === undefined ? undefined : events[event];
  } catch {
    return undefined; // routes missing or not what the build writes (a partial dist/): the full hook entry serves every event
  }
}

main().catch((err) => {
  process.stderr.write(`wmem: internal error, please report it with the lines below\n${(err && err.stack) || String(err)}\n`);
  process.exitCode = 1;
});
