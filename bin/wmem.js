#!/usr/bin/env node
// Entry point. `wmem context` and `wmem hook` run on every prompt, `wmem compact` is timed against
// cp and `wmem search` against grep, so they go through lean entries first; everything else (and
// anything a lean entry does not recognise) goes to the full command line. All are built into
// dist/ by `npm install` (the prepare script).
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // Answered before any bundle loads: scripts probe the version often.
  process.stdout.write(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version + '\n');
} else if (args[0] === 'compact') {
  // Its own lean entry: a quick cut is timed against cp, and the full CLI's loading shows.
  const { runCompact } = await import('../dist/fast/fast-compact.js');
  if (!(await runCompact(process.argv))) {
    const { run } = await import('../dist/cli.js');
    await run(process.argv);
  }
} else if (args[0] === 'search') {
  // Its own lean entry: a search is timed against grep -rF over the same files.
  const { runSearch } = await import('../dist/fast/fast-search.js');
  if (!(await runSearch(process.argv))) {
    const { run } = await import('../dist/cli.js');
    await run(process.argv);
  }
} else if (args[0] === 'mcp') {
  // Its own lean entry: a client times out on a slow server, and tools/list is answered before
  // the MCP SDK has loaded (dist/mcp/manifest.json holds the SDK server's own answers).
  const { runMcp } = await import('../dist/fast/fast-mcp.js');
  if (!(await runMcp(process.argv))) {
    const { run } = await import('../dist/cli.js');
    await run(process.argv);
  }
} else {
  const { runFast } = await import('../dist/fast/fast.js');
  if (!(await runFast(process.argv))) {
    const { run } = await import('../dist/cli.js');
    await run(process.argv);
  }
}
