// Builds the hook's first stages (src/entries/first-hook.ts), each the hook path from the same
// source modules as dist/fast/fast-hook.cjs with the modules its events never load replaced by a
// stand-in that throws FirstStageMiss when it is loaded: first-start.cjs (session starts, a new
// session's handoff loaded from dist/fast/handoff.cjs beside it), first-hook.cjs (the prompts' fallback),
// first-prompt.cjs (prompts; what it lacks goes on to first-hook.cjs, and the memory part's
// reading and rendering is loaded from dist/fast/context-memory.cjs beside it), first-tool.cjs
// (tool calls, events wmem ignores), first-archive.cjs (before a compaction: it archives and renders
// nothing) and first-end.cjs (after a compaction, a session's end). A miss
// is handed, input and all, to the next stage (WMEM_HANDS_TO: fast-hook.cjs, or first-hook.cjs for
// the prompts' build). A module may only be left out where every
// import of it is a dynamic import(): one imported statically would throw as the file loads, so
// the build refuses it. One set per agent with hooks, each with that agent's hook part alone
// (first-hook-<id>.cjs, first-tool-<id>.cjs…; the default agent's unsuffixed), and
// dist/fast/first-routes.json, bin/wmem.js's table of which agent's event goes to which file, from
// every agent's events (first-routes.ts), with how to read a hook's command line (hookLineRules:
// its options, its default agent, how an event's name is keyed). Run by `npm run build` (build:first).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as esbuild from 'esbuild';
import { IMPORT_BANNER, importsRouted } from './route-imports.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Every agent's folder under src/agents/. */
const agentDirs = readdirSync(path.join(root, 'src', 'agents'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);

/** Left out, as paths from src/: what SessionStart, UserPromptSubmit and PostToolUse(Failure) of an existing session never load. */
export const LEFT_OUT = [
  // Every agent's installer and diagnosis (its folder's index.ts: a hook loads its hook.ts alone),
  // found by folder so that a new agent's is left out too, and the whole list of them.
  'agents/registry.ts',
  ...agentDirs.map((id) => `agents/${id}/index.ts`),
  // A session the hook must create: its tree, its template, its handoff.
  'store/session-tree.ts',
  'store/templates.ts',
  'app/handoff.ts',
  // PreCompact, PostCompact, SessionEnd (served by first-end, LEFT_OUT_OF_ENDS) and what only they load.
  'history/compaction/archive-transcript.ts',
  'store/conversation-file.ts',
  'store/detail.ts',
  'ops/consolidate/pending.ts',
  'ops/consolidate/consolidate.ts',
  'app/session-decisions.ts',
];

/**
 * Left out of the tool calls' build besides (dist/fast/first-tool.cjs): the moments that answer
 * with context (a tool call's are app/hook-tool.ts's) and the context itself, which a tool call
 * renders only after the agent edited its overview, and then at its best effort (a miss there
 * leaves the render to the next prompt); workspace memory's promotion (PostCompact).
 */
export const LEFT_OUT_OF_TOOL_CALLS = [
  'app/hook-moments.ts',
  'app/hook-compaction.ts',
  'app/context.ts',
  'store/handoff.ts',
  'store/workspace.ts',
  // The transcript readers of the agents whose tool calls never read their transcript (a prompt
  // reads it for the meter; Codex CLI's and Droid's tool calls find a command's outcome in
  // theirs, so their readers stay); the usage lines, which only `wmem report` reads.
  'agents/claude/transcript-file.ts',
  'agents/gemini/chat-file.ts',
  'agents/qwen/chat-file.ts',
  'agents/copilot/events-file.ts',
  'agents/claude/usage-lines.ts',
  'agents/codex/usage-lines.ts',
  'agents/gemini/usage-lines.ts',
  'agents/qwen/usage-lines.ts',
  'agents/copilot/usage-lines.ts',
  'agents/opencode/usage-lines.ts',
];

/**
 * Left out of the compaction and session-end moments' build (dist/fast/first-end.cjs): the
 * installers, a new session's tree and handoff (loaded before anything but a project folder is
 * written), and the consolidation, which that stage loads from its own CommonJS build
 * (dist/fast/consolidate.cjs) as the full entry does.
 */
export const LEFT_OUT_OF_ENDS = LEFT_OUT.slice(0, LEFT_OUT.indexOf('history/compaction/archive-transcript.ts')).concat('ops/consolidate/consolidate.ts');

/**
 * Left out of the before-compact moments' build besides (dist/fast/first-archive.cjs): it archives
 * the transcript and renders nothing, so the context and what only the after-compact and
 * session-end moments load (the workspace's promotion, the consolidation's checks) are not in
 * it. render/context.ts stays (render/memory-resend.ts imports it statically).
 */
export const LEFT_OUT_OF_ARCHIVES = [...LEFT_OUT_OF_ENDS, 'app/context.ts', 'store/handoff.ts', 'store/workspace.ts', 'ops/consolidate/pending.ts', 'app/session-decisions.ts'];

/**
 * A bundle loaded beside a first stage: missing or broken (a partial copy of dist/), it answers as a
 * stand-in does, so the hook is handed on whole rather than served without it. context-hot.cjs (the
 * re-render after a tool call, on the prompt after most tool calls) and context-memory.cjs (the
 * render after the overview or the notes changed: ~25 M instructions of parsing and compiling
 * without a cache, bench/README.md prompt15) go, from a stage bin/wmem.js compiled from its code
 * cache, through the same loader (__wmemLoad: from their own caches); handoff.cjs by require().
 */
const BESIDE = (name) =>
  `let loaded;\ntry {\n  loaded = ${CODE_CACHED.some((kind) => name.startsWith(kind)) ? "(typeof __wmemLoad === 'function' ? __wmemLoad : require)" : 'require'}(__dirname + ${JSON.stringify(`/${name}`)});\n} catch (cause) {\n` +
  `  const miss = () => Object.assign(new Error('cannot load dist/fast/${name} beside the hook\\'s first stage'), { name: 'FirstStageMiss', cause });\n` +
  `  loaded = new Proxy({}, { getPrototypeOf() { throw miss(); }, get() { throw miss(); } });\n}\nmodule.exports = loaded;\n`;

/**
 * A stand-in is one call of the stage's one MISSING module (a tool call's stage has ~20 stand-ins,
 * each with three closures of its own before: ~4 KB of source that every tool call read and
 * summed; its code cache moved by less than 1 KB: bench/README.md, floor16). Loaded again after a
 * miss (a best-effort caller swallowed it), it must throw again: esbuild keeps a CommonJS module's
 * exports after its first run, so the throw is in the namespace's prototype, which every import()
 * of it asks for.
 */
const STAND_IN = (file) => `module.exports = require(${JSON.stringify(MISSING)})(${JSON.stringify(`src/${file}`)});\n`;
const MISSING = 'first-stage-missing';
const MISSING_MODULE =
  `module.exports = (file) => {\n  const miss = () => Object.assign(new Error(\`not in the hook's first stage: \${file}\`), { name: 'FirstStageMiss' });\n` +
  `  return new Proxy({}, { getPrototypeOf() { throw miss(); }, get() { throw miss(); } });\n};\n`;

/**
 * The plugin that puts a stand-in where each module of `leftOut` would be, and where the other
 * agents' hook parts (`otherHooks`) would be, where they are loaded by name (lookup.ts); one that
 * an agent's own hook part imports (Kilo Code's, OpenCode's) stays.
 */
const leaveOut = (leftOut, otherHooks = [], beside = {}) => ({
  name: 'first-stage-stand-ins',
  setup(build) {
    build.onResolve({ filter: new RegExp(`^${MISSING}$`) }, (args) => ({ path: args.path, namespace: 'first-stage-missing' }));
    build.onLoad({ filter: /.*/, namespace: 'first-stage-missing' }, () => ({ contents: MISSING_MODULE, loader: 'js' }));
    build.onResolve({ filter: /^\.\.?\// }, async (args) => {
      const full = path.resolve(args.resolveDir, args.path).replace(/\.js$/, '.ts');
      const file = path.relative(path.join(root, 'src'), full).split(path.sep).join('/');
      if (otherHooks.includes(file) && args.kind === 'dynamic-import') return { path: file, namespace: 'first-stage-stand-in' };
      if (Object.hasOwn(beside, file) && args.kind === 'dynamic-import') return { path: beside[file], namespace: 'first-stage-beside' };
      if (!leftOut.includes(file)) return undefined;
      if (args.kind !== 'dynamic-import') return { errors: [{ text: `src/${file} is imported statically by ${path.relative(root, args.importer)}: it cannot be left out of the first stage` }] };
      return { path: file, namespace: 'first-stage-stand-in' };
    });
    build.onLoad({ filter: /.*/, namespace: 'first-stage-stand-in' }, (args) => ({ contents: STAND_IN(args.path), loader: 'js' }));
    build.onLoad({ filter: /.*/, namespace: 'first-stage-beside' }, (args) => ({ contents: BESIDE(args.path), loader: 'js' }));
  },
});

/**
 * A default import of node:path or node:os without esbuild's __toESM, which copies every property
 * of the module onto a fresh object in each module importing it (node:path's in ~17 modules of a
 * first stage: ~2 ms of CPU at a loaded start). The bundle holds one small ES module per builtin
 * instead, its default export the builtin itself, its named exports the builtin's properties.
 * node:os is loaded on first use: the stages ask it for the home folder alone, and only when
 * neither $WMEM_HOME nor $HOME names it (names.ts), but its load on every hook cost ~10 page faults
 * and ~1 M instructions (bench/README.md, floor15). Its default export reads each property from
 * the builtin, loaded then; it has no named exports (an import of one fails the build).
 */
const builtinDefaults = {
  name: 'builtin-defaults',
  setup(build) {
    build.onResolve({ filter: /^node:(?:path|os)$/ }, (args) => (args.namespace === 'builtin-default' ? { path: args.path, external: true } : { path: args.path, namespace: 'builtin-default' }));
    build.onLoad({ filter: /.*/, namespace: 'builtin-default' }, (args) => {
      const names = Object.keys(createRequire(import.meta.url)(args.path)).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
      const spec = JSON.stringify(args.path);
      if (args.path === 'node:os') return { contents: LAZY_DEFAULT(spec, names), loader: 'js' };
      return { contents: `const m = require(${spec});\nexport default m;\nexport const { ${names.join(', ')} } = m;\n`, loader: 'js' };
    });
  },
};

/** A builtin's default export whose properties (`names`) load it on first read. */
const LAZY_DEFAULT = (spec, names) => `let m;
const lazy = {};
for (const name of ${JSON.stringify(names)}) Object.defineProperty(lazy, name, { get: () => (m ??= require(${spec}))[name], enumerable: true });
export default lazy;
`;

/**
 * Every first stage's build with every import() of a module bundled in it made static (`import * as`
 * at the module's end, the call a resolved promise of it): esbuild wraps a module any import()
 * reaches in a lazy initialiser (`__esm`), whose body V8 parses twice (preparsed with the file,
 * compiled when it runs), ~15 M instructions on a prompt; and it gives each such module a namespace
 * object of getters, one closure per export. Without them (bench/README.md, floor15): a tool
 * call's stage 101 → 94 KB, its code cache 136 → 121 KB, ~63 page faults fewer on every tool call;
 * PostCompact's stage 303 → 282 KB, ~120 fewer. An import() of what the build leaves out
 * (a stand-in), loads beside it or keeps external stays one, so a miss still throws where it did.
 * Type positions (`typeof import(…)`) are left alone.
 */
const staticImports = {
  name: 'static-imports',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const source = readFileSync(args.path, 'utf8');
      const found = /(typeof\s+)?\bimport\((['"])(\.\.?\/[^'"]+)\2\)/g;
      const names = new Map();
      for (const [, type, , spec] of source.matchAll(found)) {
        if (type || names.has(spec)) continue;
        const to = await build.resolve(spec, { kind: 'dynamic-import', resolveDir: path.dirname(args.path), importer: args.path });
        if (to.errors.length === 0 && !to.external && to.namespace === 'file') names.set(spec, `__wmemStatic${names.size}`);
      }
      if (names.size === 0) return undefined;
      const contents = source.replace(found, (call, type, _q, spec) => (!type && names.has(spec) ? `Promise.resolve(${names.get(spec)})` : call));
      const imports = [...names].map(([spec, name]) => `import * as ${name} from ${JSON.stringify(spec)};`).join('\n');
      return { contents: `${contents}\n${imports}\n`, loader: 'ts', resolveDir: path.dirname(args.path) };
    });
  },
};

/**
 * Left out of the prompts' build besides (dist/fast/first-prompt.cjs): the tool calls' and the
 * session end's work, and the compaction's and session end's moments (app/hook-compaction.ts).
 * A prompt whose memory files changed hands itself on to the agent's first-hook build
 * (WMEM_HANDS_TO) should it load one of them.
 */
export const LEFT_OUT_OF_PROMPTS = ['app/hook-work.ts', 'app/hook-compaction.ts'];

/**
 * Loaded by the prompts' build from a bundle of its own beside it, dist/fast/<name>.cjs, rather
 * than bundled in: the memory part's reading and rendering, which a prompt loads only when a file
 * it is rendered from changed since it was last rendered (app/context.ts memoryPart), and its
 * re-render from the render cache and hot.json alone, when only the hot state changed. Their
 * functions take and return plain data, so a second copy of the small modules it shares with the
 * stage (render/context.ts) is harmless.
 */
export const BESIDE_PROMPTS = { 'app/context-memory.ts': 'context-memory.cjs', 'app/context-hot.ts': 'context-hot.cjs' };

/**
 * The default agent's prompt stage is compiled from a V8 code cache made on a prompt after a tool
 * call (src/entries/build-code-cache.mjs): context-hot's functions are bundled in and come from
 * that cache (~12 M fewer instructions on such a prompt, ~2 M more and ~40 more page faults on a
 * prompt with nothing changed: bench/README.md, aftertool9). The other agents' prompt stages,
 * compiled from source, keep it beside (bundled in, every one of their prompts would compile more).
 */
export const BESIDE_CACHED_PROMPTS = { 'app/context-memory.ts': 'context-memory.cjs' };

/**
 * The session starts' build (dist/fast/first-start.cjs) is the prompts' with a new session's tree
 * and template in, and loads beside it what the prompts' loads, and the handoff from the project's
 * previous session (planSessionStart: plain data in and out, and it only reads), which only a new
 * session asks for: a resume loads neither, and a new session is served without the full entry.
 */
const NEW_SESSION_TREE = ['store/session-tree.ts', 'store/templates.ts'];
export const BESIDE_STARTS = { ...BESIDE_PROMPTS, 'app/handoff.ts': 'handoff.cjs' };

/**
 * What each kind of first stage leaves out (first-hook: prompts handed on; first-start: session starts;
 * first-prompt: prompts; first-tool: tool calls and the events wmem ignores; first-end: the
 * compactions and a session's end).
 */
const KINDS = { 'first-hook': LEFT_OUT, 'first-start': [...LEFT_OUT.filter((file) => !NEW_SESSION_TREE.includes(file)), ...LEFT_OUT_OF_PROMPTS], 'first-prompt': [...LEFT_OUT, ...LEFT_OUT_OF_PROMPTS], 'first-tool': [...LEFT_OUT, ...LEFT_OUT_OF_TOOL_CALLS], 'first-end': LEFT_OUT_OF_ENDS, 'first-archive': LEFT_OUT_OF_ARCHIVES };

/** Builds one first stage (or, `entry`, what the build asks of the sources) into dist/fast/`name`. */
async function build(name, leftOut, otherHooks, entry = 'src/entries/first-hook.ts', handsTo = 'fast-hook.cjs', beside = {}, statics = false) {
  const codeCached = CODE_CACHED.some((kind) => name.startsWith(kind));
  const result = await esbuild.build({
    entryPoints: [path.join(root, entry)],
    outfile: path.join(root, 'dist/fast', name),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
    plugins: [leaveOut(leftOut, otherHooks, beside), builtinDefaults, ...(statics ? [staticImports] : [])],
    // An ASCII file is a one-byte string: V8 scans it without a UTF-16 copy. esbuild escapes what is
    // in strings and names, not in a regular expression literal (render/context.ts spells its ſ).
    ...(statics ? { charset: 'ascii' } : {}),
    external: ['../memory/tokens.js', 'gray-matter', 'unified', 'remark-parse', 'chalk', 'execa', 'proper-lockfile', 'gpt-tokenizer', 'minisearch', 'fast-check', '@modelcontextprotocol/sdk', 'zod', 'smol-toml'],
    // The module's URL only where it is asked for (a miss handing over to the next stage, the
    // prompt's code signature): node:url's pathToFileURL is not run on every tool call. WMEM_HANDS_TO: the stage a miss is handed to
    // (src/entries/first-hook.ts).
    define: { 'import.meta.url': '__wmemModule.url', WMEM_HANDS_TO: JSON.stringify(handsTo) },
    // __wmemImport: every import() left in the stage (an external package, the tokenizer), through
    // bin/wmem.js's own when it compiled the stage from its code cache (a vm.Script has no loader
    // for import() on Node 20), else Node's (rewritten below, importsRouted).
    banner: { js: "const __wmemModule = { get url() { return require('node:url').pathToFileURL(__filename).href; } };" + (codeCached ? IMPORT_BANNER : '') },
    // WMEM_BUILD_METAFILE=prefix: what went into each bundle, and how big (esbuild's metafile).
    metafile: Boolean(process.env.WMEM_BUILD_METAFILE),
  });
  if (result.metafile) writeFileSync(`${process.env.WMEM_BUILD_METAFILE}${name}.json`, JSON.stringify(result.metafile));
  const file = path.join(root, 'dist/fast', name);
  if (codeCached) writeFileSync(file, importsRouted(readFileSync(file, 'utf8')));
}

/**
 * The kinds of stage src/entries/build-code-cache.mjs may make a V8 code cache of (the prompts,
 * tool calls, session starts and compaction moments, and context-hot.cjs and context-memory.cjs
 * beside them; it checks their banner):
 * bin/wmem.js compiles those
 * through node:vm, whose scripts have no loader for import() on Node 20, so each import() left in
 * them (an external package, the tokenizer) calls __wmemImport, bin/wmem.js's own import() when it
 * compiled the stage, else Node's.
 */
const CODE_CACHED = ['first-prompt', 'first-tool', 'first-start', 'context-hot', 'context-memory', 'first-end', 'first-archive'];

// Which agent's events each kind serves comes from a build with every agent's hook part
// (first-routes.ts's firstStageRoutes: lookup.ts's agents, their events, the moments the stage
// serves), and so do the rules bin/wmem.js reads a hook's command line by (hookLineRules).
const probe = '.first-stage-probe.cjs';
await build(probe, LEFT_OUT, [], 'src/entries/first-routes.ts');
const probed = createRequire(import.meta.url)(path.join(root, 'dist/fast', probe));
const agents = await probed.firstStageRoutes();
const rules = probed.hookLineRules();
rmSync(path.join(root, 'dist/fast', probe));

// Then one first stage per agent and kind, holding that agent's hook part alone: each agent's code
// costs every hook of the others its compiling (Claude Code's prompt hook loaded 5-7 ms more CPU
// with all eight in). The default agent's are first-hook.cjs and first-tool.cjs, another's
// first-hook-<id>.cjs and first-tool-<id>.cjs; bin/wmem.js finds them in first-routes.json.
const hookFiles = agentDirs.map((id) => `agents/${id}/hook.ts`);
const routes = {};
const builds = [];
for (const agent of agents) {
  const file = (kind) => `${kind}${agent.isDefault ? '' : `-${agent.id}`}.cjs`;
  const events = Object.fromEntries(Object.entries(agent.events).map(([event, kind]) => [event, file(kind)]));
  const kinds = new Set(Object.values(agent.events));
  // A prompt the prompts' build cannot answer goes on to the agent's first-hook build.
  if (kinds.has('first-prompt')) kinds.add('first-hook');
  const others = hookFiles.filter((f) => f !== `agents/${agent.id}/hook.ts`);
  for (const kind of kinds) builds.push(build(file(kind), KINDS[kind], others, undefined, kind === 'first-prompt' ? file('first-hook') : undefined, { 'first-prompt': agent.isDefault ? BESIDE_CACHED_PROMPTS : BESIDE_PROMPTS, 'first-start': BESIDE_STARTS }[kind] ?? {}, true));
  for (const name of agent.names) routes[name] = events;
}
// What the prompts' and the starts' builds load beside them, each from its own source module, bundled alone.
for (const [source, name] of Object.entries(BESIDE_STARTS)) builds.push(build(name, [], [], `src/${source}`));
await Promise.all(builds);
writeFileSync(path.join(root, 'dist/fast/first-routes.json'), JSON.stringify({ ...rules, agents: routes }) + '\n');
