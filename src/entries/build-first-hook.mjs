// Builds dist/fast/first-hook.cjs and first-tool.cjs, the hook's first stage (src/entries/first-hook.ts): the hook
// path from the same source modules as dist/fast/fast-hook.cjs, with the modules the common
// events never load replaced by a stand-in that throws FirstStageMiss when it is loaded (the
// first stage then hands the hook to fast-hook.cjs). A module may only be left out where every
// import of it is a dynamic import(): one imported statically would throw as the file loads, so
// the build refuses it. Run by `npm run build` (build:first).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileSync } from 'node:fs';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Left out, as paths from src/: what SessionStart, UserPromptSubmit and PostToolUse(Failure) of an existing session never load. */
export const LEFT_OUT = [
  // Other agents (the first stage serves Claude Code only) and the whole list of them.
  'agents/registry.ts',
  ...['codex', 'gemini', 'opencode', 'copilot', 'qwen', 'droid', 'kilo', 'auggie', 'amp', 'crush'].map((id) => `agents/${id}/index.ts`),
  // A session the hook must create: its tree, its template, its handoff.
  'store/session-tree.ts',
  'store/templates.ts',
  'app/handoff.ts',
  // PreCompact, PostCompact, SessionEnd (never served here) and what only they load.
  'history/compaction/archive-transcript.ts',
  'store/conversation-file.ts',
  'store/detail.ts',
  'ops/consolidate/pending.ts',
  'ops/consolidate/consolidate.ts',
  'app/session-decisions.ts',
];

/**
 * Left out of the tool calls' build besides (dist/fast/first-tool.cjs): the context, which a tool
 * call renders only after the agent edited its overview, and then at its best effort (a miss
 * there leaves the render to the next prompt); workspace memory's promotion (PostCompact).
 */
export const LEFT_OUT_OF_TOOL_CALLS = ['app/context.ts', 'store/handoff.ts', 'store/workspace.ts'];

const STAND_IN = (file) =>
  // Loaded again after a miss (a best-effort caller swallowed it), it must throw again: esbuild
  // keeps a CommonJS module's exports after its first run, so the throw is in the namespace's
  // prototype, which every import() of it asks for.
  `const miss = () => Object.assign(new Error('not in the hook\\'s first stage: src/${file}'), { name: 'FirstStageMiss' });\n` +
  `module.exports = new Proxy({}, { getPrototypeOf() { throw miss(); }, get() { throw miss(); } });\n`;

/** The plugin that puts a stand-in where each module of `leftOut` would be. */
const leaveOut = (leftOut) => ({
  name: 'first-stage-stand-ins',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, async (args) => {
      const full = path.resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      const file = path.relative(path.join(root, 'src'), full).split(path.sep).join('/');
      if (!leftOut.includes(file)) return undefined;
      if (args.kind !== 'dynamic-import') return { errors: [{ text: `src/${file} is imported statically by ${path.relative(root, args.importer)}: it cannot be left out of the first stage` }] };
      return { path: file, namespace: 'first-stage-stand-in' };
    });
    build.onLoad({ filter: /.*/, namespace: 'first-stage-stand-in' }, (args) => ({ contents: STAND_IN(args.path), loader: 'js' }));
  },
});

const builds = [
  ['first-hook.cjs', LEFT_OUT],
  ['first-tool.cjs', [...LEFT_OUT, ...LEFT_OUT_OF_TOOL_CALLS]],
];
for (const [name, leftOut] of builds) {
  const result = await esbuild.build({
    entryPoints: [path.join(root, 'src/entries/first-hook.ts')],
    outfile: path.join(root, 'dist/fast', name),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
    plugins: [leaveOut(leftOut)],
    external: ['../memory/tokens.js', 'gray-matter', 'unified', 'remark-parse', 'chalk', 'execa', 'proper-lockfile', 'gpt-tokenizer', 'minisearch', 'fast-check', '@modelcontextprotocol/sdk', 'zod', 'smol-toml'],
    define: { 'import.meta.url': '__wmemModuleUrl' },
    banner: { js: "const __wmemModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
    // WMEM_BUILD_METAFILE=prefix: what went into each bundle, and how big (esbuild's metafile).
    metafile: Boolean(process.env.WMEM_BUILD_METAFILE),
  });
  if (result.metafile) writeFileSync(`${process.env.WMEM_BUILD_METAFILE}${name}.json`, JSON.stringify(result.metafile));
}
