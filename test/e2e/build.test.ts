// The lean bundles (dist/fast/first.cjs, the first stage of `context`, dist/fast/fast.cjs for `context` and dist/fast/fast-hook.cjs for `hook`,
// which run on every prompt, dist/fast/fast-compact.cjs for `compact`, dist/fast/fast-search.cjs for `search`, and
// dist/fast/fast-mcp.js for `mcp`) must each stay one file that loads nothing but Node built-ins
// up front: every heavy or rarely used module is reached through a dynamic import that points
// into the full build or a package. A wrong path
// there would only fail on the rare run that needs it (a changed overview.md, a first token
// count, a hook, the MCP server), so each one is checked.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';

const leanDir = path.join(ROOT, 'dist', 'fast');
// Packages a CommonJS bundle may require() where it is used, never up front (src/memory/overview.ts).
const MARKDOWN = ['unified', 'remark-parse', 'gray-matter'];
const lazyPackages: Record<string, string[]> = { 'fast-hook.cjs': MARKDOWN, 'fast-compact.cjs': MARKDOWN, 'consolidate.cjs': MARKDOWN, 'context-memory.cjs': MARKDOWN, 'handoff.cjs': MARKDOWN };
// The hook's first stages, one pair per agent with hooks (first-hook.cjs and first-tool.cjs, the
// default agent's; first-hook-<id>.cjs, first-tool-<id>.cjs), as bin/wmem.js finds them.
const ROUTES = 'first-routes.json';
const routed = Object.values((JSON.parse(readFileSync(path.join(leanDir, ROUTES), 'utf8')) as { agents: Record<string, Record<string, string>> }).agents).flatMap((events) => Object.values(events));
// And the agent's first-hook build, which no event is routed to: the prompts' build hands on to it.
const firstStages = [...new Set([...routed, ...routed.filter((name) => name.startsWith('first-prompt')).map((name) => name.replace('first-prompt', 'first-hook'))])].sort();
for (const name of firstStages) lazyPackages[name] = MARKDOWN;
const bundles: Record<string, string[]> = {
  'fast.cjs': ['../memory/overview.js', '../memory/tokens.js', '../commands/hook.js'],
  // The overview is in it (a line scanner reads overview.md; the Markdown parser and gray-matter
  // are required only for text it declines, below). The consolidation (a session's end) is not:
  // bundled, it cost every prompt's hook 5-10 ms of compiling.
  'fast-hook.cjs': ['../memory/tokens.js', '../ops/consolidate/consolidate.js'],
  // The hook's first stages: the same hook path without what the common events never load
  // (src/entries/build-first-hook.mjs); they require fast-hook.cjs for anything else (below). A
  // tool call's (first-tool*) is without the context's rendering (it hands a miss there over too).
  ...Object.fromEntries(firstStages.map((name) => [name, name.startsWith('first-hook') ? ['../memory/tokens.js'] : []])),
  // Like the hook bundle: CommonJS, the overview in it, the Markdown parser required where used.
  // The search indexing (only the finishing, `compact --finish`, runs it) is not: a compaction's
  // return compiled its 100 KB for nothing.
  'fast-compact.cjs': ['../store/search-corpus.js'],
  // SessionEnd's consolidation, required by the hook bundle only then (below): CommonJS, so a
  // session's end starts no ES module loader. execa (an LLM consolidation) is never run by a hook.
  'consolidate.cjs': [],
  'fast-mcp.js': ['../mcp/server.js'],
  // CommonJS as well: a search is timed against grep, and the ES module loader showed.
  'fast-search.cjs': [],
  // The first stage of `context`: reads the answer cache, loads nothing else at all.
  'first.cjs': [],
  // The memory part's reading and rendering, which the prompts' first stage requires beside it
  // only for a prompt whose memory files changed (src/entries/build-first-hook.mjs BESIDE_PROMPTS).
  'context-memory.cjs': [],
  // Its re-render from the render cache and hot.json, for a prompt after a tool call that changed
  // the hot state alone (BESIDE_PROMPTS as well).
  'context-hot.cjs': [],
  // The handoff from the project's previous session, which the session starts' first stage
  // requires beside it only for a new session (src/entries/build-first-hook.mjs BESIDE_STARTS).
  'handoff.cjs': [],
};

/**
 * What loading a CommonJS bundle requires, asked of a fresh Node (a minified bundle, such as
 * fast-compact.cjs, has no line a pattern could tell a top-level require by).
 */
function requiredAtLoad(file: string): string[] {
  const probe = `const M = require('node:module'); const seen = []; const load = M._load; M._load = function (request, ...rest) { seen.push(request); return load.call(this, request, ...rest); }; require(${JSON.stringify(file)}); process.stdout.write(JSON.stringify(seen));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' })) as string[];
}

it('the lean entries are single files, one per entry', () => {
  expect(readdirSync(leanDir).sort()).toEqual([...Object.keys(bundles), ROUTES].sort());
});

it('has a first stage for the hooks of every agent with hooks, the default agent\'s unsuffixed', () => {
  expect(firstStages).toEqual(expect.arrayContaining(['first-hook.cjs', 'first-start.cjs', 'first-tool.cjs', 'first-hook-codex.cjs', 'first-start-codex.cjs', 'first-tool-gemini.cjs']));
});

for (const [name, lazyPaths] of Object.entries(bundles)) {
  describe(`the lean bundle ${name}`, () => {
    const lean = readFileSync(path.join(leanDir, name), 'utf8');

    it('statically imports only Node built-ins', () => {
      // CommonJS (fast.cjs): every require() is of a built-in, whenever it runs.
      const staticImports = name.endsWith('.cjs')
        ? [...lean.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1])
        : [...lean.matchAll(/^import\s[^;]*?from\s+["']([^"']+)["']/gm)].map((m) => m[1]);
      expect(staticImports.length).toBeGreaterThan(0);
      const lazy = lazyPackages[name] ?? [];
      expect(staticImports.filter((spec) => !spec!.startsWith('node:') && !lazy.includes(spec!))).toEqual([]);
      // Each lazily required package resolves from the bundle's folder, and none is required at load.
      for (const spec of lazy) expect(createRequire(path.join(leanDir, name)).resolve(spec)).toBeTruthy();
      if (lazy.length) {
        const required = requiredAtLoad(path.join(leanDir, name));
        // The probe saw the bundle's own requires (else the next line would prove nothing).
        expect(required).toContain('node:fs');
        expect(required.filter((spec) => lazy.includes(spec))).toEqual([]);
      }
    });

    it('reaches the full build through dynamic imports that resolve to built files', () => {
      // (__wmemImport: a code-cached first stage's import(), build-first-hook.mjs CODE_CACHED.)
      const relative = [...lean.matchAll(/\b(?:import|__wmemImport)\(\s*["'](\.\.?\/[^"']+)["']\s*\)/g)].map((m) => m[1]!);
      expect(relative).toEqual(expect.arrayContaining(lazyPaths));
      for (const spec of relative) expect(existsSync(path.resolve(leanDir, spec)), spec).toBe(true);
    });
  });
}

// The hook bundle requires the consolidation beside it at SessionEnd, by a path built at run time
// (so the build cannot check it): the file is there, and it is the consolidation.
it('the hook bundle reaches the CommonJS consolidation beside it', () => {
  const hook = readFileSync(path.join(leanDir, 'fast-hook.cjs'), 'utf8');
  const named = [...hook.matchAll(/new URL\("\.\/([\w.-]+\.cjs)", __wmemModuleUrl\)/g)].map((m) => m[1]);
  expect(named).toEqual(['consolidate.cjs']);
  const required = createRequire(path.join(leanDir, 'fast-hook.cjs'))('./consolidate.cjs') as Record<string, unknown>;
  expect(typeof required.consolidateSession).toBe('function');
});

// The hook's first stage hands what it cannot answer to the full hook entry beside it, by a path
// built at run time; and what it leaves out is a stand-in that throws FirstStageMiss, never a
// module that loads up front (the build refuses one imported statically).
it.each(firstStages)('the hook\'s first stage %s reaches the stage it hands over to beside it, and is the smaller file', (name) => {
  const first = readFileSync(path.join(leanDir, name), 'utf8');
  const named = [...first.matchAll(/new URL\("\.\/([\w.-]+\.cjs)", __wmemModule\.url\)/g)].map((m) => m[1]);
  // The consolidation beside it, as the full entry has (a session's end, first-end*).
  expect(named).toEqual(['consolidate.cjs']);
  // What a miss is handed to (the build's WMEM_HANDS_TO): the prompts' build hands on to the
  // agent's first-hook build, the others to the full entry.
  const handsTo = [...first.matchAll(/const next = true \? "([\w.-]+\.cjs)"/g)].map((m) => m[1]);
  expect(handsTo).toEqual([name.startsWith('first-prompt') ? name.replace('first-prompt', 'first-hook') : 'fast-hook.cjs']);
  const required = createRequire(path.join(leanDir, name))(`./${handsTo[0]}`) as Record<string, unknown>;
  expect(typeof (required.runHook ?? required.runFast)).toBe('function');
  expect(first).toContain('name: "FirstStageMiss"');
  expect(first).not.toContain('function consolidateSession(');
  // The smaller file for what it leaves out (not by a ratio of sizes, which drifts as the code the
  // stages share grows): of the eleven agents' hook parts the full entry holds, its own agent's
  // alone (Kilo Code's is OpenCode's under its names); no installer nor the registry of them; the
  // handoff and the consolidation only from their bundles beside it.
  const modules = (code: string) => new Set([...code.matchAll(/^\/\/ src\/(\S+)$/gm)].map((m) => m[1]));
  const hookParts = (found: Set<string>) => [...found].filter((m) => /^agents\/\w+\/hook\.ts$/.test(m)).sort();
  const full = modules(readFileSync(path.join(leanDir, 'fast-hook.cjs'), 'utf8'));
  const agent = /^first-\w+-(\w+)\.cjs$/.exec(name)?.[1] ?? 'claude';
  expect(hookParts(full).length).toBeGreaterThan(8);
  expect(hookParts(modules(first))).toEqual((agent === 'kilo' ? ['kilo', 'opencode'] : [agent]).map((id) => `agents/${id}/hook.ts`));
  expect([...modules(first)].filter((m) => /^agents\/(\w+\/index|registry)\.ts$/.test(m) || m === 'app/handoff.ts' || m === 'ops/consolidate/consolidate.ts')).toEqual([]);
  expect(first.length).toBeLessThan(readFileSync(path.join(leanDir, 'fast-hook.cjs')).length);
  // The compaction's and the session end's moments are in the stages that serve them alone, not
  // in what a prompt, a start or a tool call loads.
  if (/^first-(prompt|start|tool)/.test(name)) expect(modules(first).has('app/hook-compaction.ts')).toBe(false);
  if (/^first-(end|archive)/.test(name)) expect(modules(first).has('app/hook-compaction.ts')).toBe(true);
});

// A search loads no more than it needs: node:crypto (temp names, an index's build) and
// node:child_process (the background indexing it may start) are loaded on first use.
it('the lean search bundle does not load node:crypto or node:child_process up front', () => {
  const lean = readFileSync(path.join(leanDir, 'fast-search.cjs'), 'utf8');
  // Every require() at load: at the top, or in a module's init function that the entry runs.
  const required = [...lean.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
  expect(required.length).toBeGreaterThan(0);
  expect(required).not.toContain('node:crypto');
  expect(required).not.toContain('node:child_process');
});

// The first stage runs before anything else on every `wmem context`: it stays a few KB.
it('the first stage of context is small', () => {
  expect(readFileSync(path.join(leanDir, 'first.cjs')).length).toBeLessThan(16 * 1024);
});

// A bundle with one non-ASCII character is a two-byte string in V8: twice the memory (and the page
// faults) to read and scan it. What runs on every prompt and tool call stays ASCII: the prompts',
// tool calls' and starts' first stages, the render-cache misses' bundles beside them, and
// `context`'s entries; so does every other first stage (the compaction and end ones: 280 KB). (A regular
// expression keeps its characters as written: spell them \uXXXX, as src/memory/hot-state.ts does.)
it('every first stage and the bundles beside them are ASCII', () => {
  const everyTurn = [...firstStages, 'context-hot.cjs', 'context-memory.cjs', 'first.cjs', 'fast.cjs'];
  const nonAscii = everyTurn.filter((name) => /[^\x00-\x7f]/.test(readFileSync(path.join(leanDir, name), 'latin1')));
  expect(nonAscii).toEqual([]);
});

// esbuild wraps a module an import() reaches in a lazy initialiser (`__esm`) and gives it a
// namespace object of getters: every first stage has each import() of a module bundled in it made
// static, a tool call's ~63 page faults fewer, PostCompact's ~120 (src/entries/build-first-hook.mjs
// staticImports, bench/README.md, floor15).
it('no first stage wraps a module in a lazy initialiser', () => {
  expect(firstStages.filter((name) => /^first-(tool|end|archive)/.test(name)).length).toBeGreaterThan(2);
  expect(firstStages.filter((name) => readFileSync(path.join(leanDir, name), 'latin1').includes('__esm('))).toEqual([]);
});

// `wmem compact` is timed against cp: its bundle (150 KB) as a two-byte string was ~150 KB more
// young-generation memory to fault in and decode on every return (bench/README.md, compact9).
it('the compact return\'s bundle is ASCII', () => {
  expect(/[^\x00-\x7f]/.test(readFileSync(path.join(leanDir, 'fast-compact.cjs'), 'latin1'))).toBe(false);
});
