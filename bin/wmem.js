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
    // Answered before any large bundle loads: scripts probe the version often. Written as
    // `wmem context` writes (first.cjs's writeStdout): process.stdout on a pipe builds a stream
    // and loads net and the stream modules (~130 page faults: bench/README.md, hit12).
    const text = JSON.parse(require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'package.json'), 'utf8')).version + '\n';
    let write;
    try {
      write = require('../dist/fast/first.cjs').writeStdout;
    } catch {
      write = (t) => process.stdout.write(t); // no bundle (a build under way, bin/ copied alone): the stream
    }
    write(text); // a reader gone (EPIPE) ends quietly in main's catch, as every command's output
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
      // A quick cut is timed against cp, and the full CLI's loading shows: compiled from the code
      // cache of a compaction's run (~40 M of the return's ~180 M instructions are parsing and
      // compiling: bench/README.md, ret13). The finishing (`--finish`, in the background, nobody
      // waiting) loads as before: it never writes over the cache of the run the build made.
      return (args.includes('--finish') ? require('../dist/fast/fast-compact.cjs') : loadStage('fast-compact.cjs')).runCompact(process.argv);
    case 'search':
      // A search is timed against grep -rF over the same files: CommonJS too (no ES module loader),
      // compiled from the code cache of a search's run (build-code-cache.mjs searchRun), and ended
      // once it has answered, as a hook is (endIfIdle: no heap teardown for a process about to go).
      return loadStage('fast-search.cjs').runSearch(process.argv).then((served) => {
        if (served) endIfIdle();
        return served;
      });
    case 'mcp':
      // A client times out on a slow server, and tools/list is answered before the MCP SDK has
      // loaded (dist/mcp/manifest.json holds the SDK server's own answers).
      return (await import('../dist/fast/fast-mcp.js')).runMcp(process.argv);
    case 'hook':
      // Every prompt and every tool call: the hook path in one CommonJS file (fast-hook.cjs), for
      // every agent's common events first through a first stage built for the moment, without
      // what it never loads (first-prompt, first-tool, first-start, first-archive, first-end:
      // src/entries/build-first-hook.mjs), which hands anything it lacks on (a prompt to
      // first-hook.cjs, the rest to fast-hook.cjs). The choice here is read from the words as the
      // first stage reads them: a wrong one would cost time, never an answer
      // (src/entries/first-hook.ts decides what it serves).
      return hookEntry(readLine());
    default:
      // `wmem --home H hook ...`, the command `wmem install --home H` writes into the agent's hooks.
      if (args[0]?.startsWith('-')) {
        const read = readLine();
        if (read?.line?.words[0] === 'hook') return hookEntry(read);
      }
      // `wmem context` (every prompt, in some setups): first from the session's answer cache (a
      // small file that reads it and stats what it was computed from), else the same entry as
      // the hooks without the hook moments, which it never runs (a smaller file to compile). A hit
      // ends as a hook does (endIfIdle, a stdout write still under way waited for): a natural
      // exit would tear the heap down page by page for nothing (bench/README.md, ctx14).
      if (args[0] === 'context' && require('../dist/fast/first.cjs').answerFromCache(args)) return endIfIdle(), true;
      return require('../dist/fast/fast.cjs').runFast(process.argv);
  }
}

/**
 * Runs `wmem hook` through its first stage, or the full hook entry. The stage is given the line as
 * read here (parseArgs's values and positionals), so that it does not parse it again.
 */
function hookEntry(read) {
  const stage = firstStage(read);
  let first;
  try {
    first = stage && loadStage(stage);
  } catch {
    first = undefined; // a first stage missing or broken (a partial copy of dist/): the full entry serves it
  }
  const answered = first ? first.runHook(process.argv, undefined, read.line.parsed) : require('../dist/fast/fast-hook.cjs').runFast(process.argv);
  return answered.then((served) => {
    if (served) endIfIdle();
    return served;
  });
}

/**
 * Ends a hook's process as soon as it has answered, when nothing is left to run (no handle,
 * request, timer or immediate: a write still under way counts). Left to itself, the process would
 * turn its event loop once more and run what V8 posted there meanwhile: a scavenge it schedules
 * when the young generation fills to 80 %, which the prompt after a tool call reached near its
 * end (~60 page faults, ~3 % of its time, for a heap about to be dropped: bench/README.md,
 * after13). Not a setImmediate (runtime.ts exitWhenIdle): that turn runs the posted task first.
 * process.exit keeps process.exitCode and runs the 'exit' listeners (the code cache's writer).
 * It cannot see a promise callback or nextTick still queued: every hook path awaits its work
 * before it resolves (a chain left running after the answer would be cut here, so never leave one).
 */
function endIfIdle() {
  if (process.getActiveResourcesInfo().length === 0) process.exit();
  // A hook that answers from inside an fs request's callback (its last await a folder's fsync in
  // the thread pool: a compaction's archive) still sees that request as active until the callback
  // returns: look again on the next turn, rather than leave the process to its natural exit and
  // its heap's teardown (bench/README.md, cmp17).
  else setImmediate(() => process.getActiveResourcesInfo().length === 0 && process.exit());
}

/**
 * A first stage's exports (or context-hot.cjs's, loaded beside one: __wmemLoad), compiled from the V8 code cache the build made of it (dist/code-cache/,
 * src/entries/build-code-cache.mjs: the bytecode of the functions a usual run of it compiles,
 * ~30 M instructions of parsing and compiling on a prompt) when that cache is the one made from
 * this very file's bytes, else as require() loads it. WMEM_CODE_CACHE_WRITE (the build alone sets
 * it) makes the cache: with 1 as the process exits (every function the run compiled), with `load`
 * as soon as the stage has loaded (its top level alone: no parse of the whole file, and a small
 * cache for a stage whose run compiles little, a tool call's: bench/README.md, hit12).
 */
function loadStage(stage) {
  const mode = process.env.WMEM_CODE_CACHE_WRITE;
  const write = mode === '1' || mode === 'load' ? mode : undefined;
  let cache;
  if (!write) {
    try {
      cache = openRegular(require('node:fs'), `${__dirname}/../dist/code-cache/${stage}.v8`);
    } catch {
      // No cache (another agent's stage, a build without them): as before.
      return require(`../dist/fast/${stage}`);
    }
  }
  try {
    return fromCodeCache(stage, cache, write);
  } finally {
    if (cache) require('node:fs').closeSync(cache.fd);
  }
}

/**
 * A code cache's first line: the checksums of the stage's bytes and of the cache's data, and the
 * data's length. V8 itself checks only its version, its flags and the source's length, and on a
 * release build it deserializes damaged data without a check (a fatal error no try catches):
 * so data that is not byte for byte what the build wrote, or a cache of other source bytes (an
 * edited or rebuilt stage), is never given to V8. Content, not times: an npm install gives the
 * files new times, and its caches still serve.
 */
function cacheHeader(sourceCrc, crc32, data) {
  const line = `wmem-code-cache 1 ${sourceCrc.toString(16)} ${crc32(data).toString(16)} ${data.length}`;
  // Padded to a multiple of 16 bytes: the data then starts where the buffer's allocation is
  // aligned, and V8 deserializes it in place. Data off an 8-byte boundary it first copies whole
  // (AlignedCachedData): fresh memory, ~30 page faults for a tool stage's 122 KB cache.
  return `${line.padEnd(Math.ceil((line.length + 1) / 16) * 16 - 1)}\n`;
}

/** crc32Function's answer, once asked: [the function or undefined]. */
let crc32Known;

/**
 * zlib's crc32 (undefined on a Node without it), from zlib's native binding: node:zlib's module
 * loads node:stream and ~25 modules more (~110 page faults, ~2.5 ms on a machine where a fault
 * costs ~20 us: bench/README.md, start9) on every hook with a code cache. Only on the Node majors
 * whose binding is known to take (bytes, initial value): its C++ side aborts the process, past any
 * try, on arguments it does not expect. process.binding is deprecated (a warning under
 * --pending-deprecation, however spelled, and a throw with --throw-deprecation on top): the call
 * is made with deprecations muted, so nothing reaches the agent's stderr. The known answer keeps
 * a binding that computes something else from being used; node:zlib's crc32 otherwise.
 */
function crc32Function() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 20 && major <= 24 && typeof process.binding === 'function') {
    // Already muted (--no-deprecation makes it a read-only true, which strict code cannot assign).
    const mute = process.noDeprecation !== true;
    const own = Object.hasOwn(process, 'noDeprecation');
    const saved = process.noDeprecation;
    try {
      if (mute) process.noDeprecation = true;
      const binding = process.binding('zlib');
      // crc32 of "wmem", zlib.crc32's answer.
      if (typeof binding.crc32 === 'function' && binding.crc32(Buffer.from('wmem'), 0) === 3156909389) return (data) => binding.crc32(data, 0);
    } catch {
      // no such binding here (or the permission model refuses it): node:zlib's
    } finally {
      if (mute && own) process.noDeprecation = saved;
      else if (mute) delete process.noDeprecation;
    }
  }
  const zlib = require('node:zlib');
  return typeof zlib.crc32 === 'function' ? zlib.crc32 : undefined;
}

/**
 * loadStage's compile through node:vm, with the cache's data (`cache`: its open file and size) when
 * it was made from this stage's bytes. The cache is read into the buffer the stage's bytes were
 * read into, once they are decoded and summed: fresh memory faults page by page on its first
 * write (~40 page faults for a 160 KB cache, dear on a machine where a fault costs ~20 us:
 * bench/README.md, faults8, hit10), and those pages are touched already.
 */
function fromCodeCache(stage, cache, write) {
  const fs = require('node:fs');
  const path = require('node:path');
  // Looked up once per process: a stage and context-hot.cjs beside it both go through here.
  const crc32 = (crc32Known ??= [crc32Function()])[0];
  const file = path.join(__dirname, '..', 'dist', 'fast', stage);
  // This file's own Module class: node:module itself would load the ES module loader's internals.
  const Module = module.constructor;
  let wrapped;
  try {
    wrapped = readWrapped(fs, Module, file, cache ? cache.size : 0);
  } catch {
    return require(file); // unreadable: require() says why, or hands over to the full entry
  }
  if (!crc32) return require(file); // a Node without it: no check, no cache
  const sourceCrc = crc32(wrapped.bytes);
  const trusted = cache && trustedData(fs, cache, wrapped.buffer, sourceCrc, crc32);
  const vm = require('node:vm');
  const script = new vm.Script(wrapped.source, { filename: file, cachedData: trusted });
  const stageModule = new Module(file, null);
  stageModule.filename = file;
  stageModule.paths = Module._nodeModulePaths(path.dirname(file));
  // import() in a vm.Script has no loader on Node 20: the stage's (an external package, the
  // tokenizer) call module.__wmemImport, this file's own (the build's banner, __wmemImport).
  stageModule.__wmemImport = (spec) => import(spec.startsWith('.') ? require('node:url').pathToFileURL(path.resolve(path.dirname(file), spec)).href : spec);
  // A bundle beside the stage (build-first-hook.mjs BESIDE: context-hot.cjs, the re-render after a
  // tool call) through this same loader: from its own checked cache when the build made one.
  stageModule.__wmemLoad = (beside) => loadStage(path.basename(beside));
  // As require() does, the module is known before its body runs (a require of itself gets it).
  require.cache[file] = stageModule;
  try {
    script.runInThisContext().call(stageModule.exports, stageModule.exports, Module.createRequire(file), stageModule, file, path.dirname(file));
  } catch (err) {
    delete require.cache[file];
    throw err;
  }
  stageModule.loaded = true;
  const save = () => writeCodeCache(path.join(__dirname, '..', 'dist', 'code-cache', `${stage}.v8`), (data) => cacheHeader(sourceCrc, crc32, data), script.createCachedData());
  if (write === 'load') save();
  else if (write) process.once('exit', save);
  return stageModule.exports;
}

/** The cache's data, read into `buffer` (the stage's, its bytes no longer needed), when its header is the one made for these source bytes and this data; else undefined. */
function trustedData(fs, cache, buffer, sourceCrc, crc32) {
  let got;
  try {
    got = readInto(fs, cache.fd, buffer, 0, cache.size);
  } catch {
    return undefined; // an unreadable cache: the stage compiles as without one
  }
  const cached = buffer.subarray(0, got);
  const newline = cached.indexOf(10);
  const data = newline > 0 ? cached.subarray(newline + 1) : undefined;
  return data && cached.toString('latin1', 0, newline + 1) === cacheHeader(sourceCrc, crc32, data) ? data : undefined;
}

/**
 * A stage's bytes and its source as Module.wrap gives it, read into one buffer between the
 * wrapper's two parts and decoded once: Module.wrap's concatenation is a string V8 flattens
 * (copies) before it compiles, ~150 KB more to touch on every prompt (~37 page faults, dear on a
 * machine where a fault costs ~20 us: bench/README.md, faults8). The same string, byte for byte.
 * The buffer is at least `atLeast` bytes long: the code cache is read into it next.
 */
function readWrapped(fs, Module, file, atLeast) {
  const [head, tail] = Module.wrapper;
  const { fd, size } = openRegular(fs, file);
  try {
    const all = Buffer.allocUnsafe(Math.max(head.length + size + tail.length, atLeast));
    all.write(head, 0, 'latin1');
    if (readInto(fs, fd, all, head.length, size) !== size) throw new Error(`${file} changed while read`);
    all.write(tail, head.length + size, 'latin1');
    return { buffer: all, bytes: all.subarray(head.length, head.length + size), source: all.toString('utf8', 0, head.length + size + tail.length) };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A regular file opened for reading: its descriptor and size. Non-blocking: a FIFO planted there
 * would block the hook for ever; anything but a file throws (and is closed).
 */
function openRegular(fs, file) {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    return { fd, size: st.size };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/** Reads `fd` from its start into `buffer` at `at`, up to `size` bytes: the count read (less at an early end). */
function readInto(fs, fd, buffer, at, size) {
  let got = 0;
  for (let n; got < size && (n = fs.readSync(fd, buffer, at + got, size - got, got)) > 0; ) got += n;
  return got;
}

/** Writes a stage's code cache (build time): whole or not at all, as a temporary file renamed. */
function writeCodeCache(cacheFile, header, data) {
  const fs = require('node:fs');
  fs.mkdirSync(require('node:path').dirname(cacheFile), { recursive: true });
  const temp = `${cacheFile}.${process.pid}.tmp`;
  fs.writeFileSync(temp, Buffer.concat([Buffer.from(header(data), 'latin1'), data]));
  fs.renameSync(temp, cacheFile);
}

/**
 * The hook's first stage for this command line, or undefined: an agent or event it does not serve,
 * or a line the first stage's parser would not take (it would hand it over anyway).
 * dist/fast/first-routes.json (written by the build) says, for each agent's id and alias, which of
 * its events go to which first stage (first-<kind>[-<agent>].cjs), and how to read the line:
 * the options `wmem hook` takes (and which take a value), the default agent, and what an event's name may hold
 * besides its letters (`post-tool-use` is `PostToolUse`, as the agents' eventFor takes it).
 */
function firstStage(read) {
  const line = read?.line;
  if (!line || line.words.length !== 2 || line.words[0] !== 'hook') return undefined;
  try {
    const { routes } = read;
    const agent = String(line.agent ?? routes.defaultAgent).trim().toLowerCase();
    const events = Object.hasOwn(routes.agents, agent) ? routes.agents[agent] : {};
    const event = line.words[1].replace(new RegExp(routes.separators, 'g'), '').toLowerCase();
    return Object.hasOwn(events, event) ? events[event] : undefined;
  } catch {
    return undefined; // routes not what the build writes (a partial dist/): the full hook entry serves every event
  }
}

/** The routes and the command line read by them, or undefined when there are none (a partial dist/). */
function readLine() {
  try {
    // Read as the stages are, not by require(): its resolution and JSON loader compile ~10 more
    // functions of Node's own and stat the path's folders, on every hook (~10 page faults).
    const fs = require('node:fs');
    const { fd, size } = openRegular(fs, `${__dirname}/../dist/fast/first-routes.json`);
    let text;
    try {
      const bytes = Buffer.allocUnsafe(size);
      text = bytes.toString('utf8', 0, readInto(fs, fd, bytes, 0, size));
    } finally {
      fs.closeSync(fd);
    }
    const routes = JSON.parse(text);
    return { routes, line: parseLine(routes.options) };
  } catch {
    return undefined;
  }
}

/**
 * The command line's words and its --agent, read as the first stage's parser reads it (node:util's
 * parseArgs, strict): `options` maps each option `wmem hook` takes to whether it takes a value.
 * Undefined for what that parser refuses (an unknown option, a missing value, `--`), which the full
 * entry explains. `parsed`: what parseArgs would answer ({ values, positionals }), for a line of
 * long options only (a short one's long name is not in the routes).
 */
function parseLine(options) {
  const words = [];
  const values = {};
  let short = false;
  let agent;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') return undefined;
    if (!arg.startsWith('-') || arg === '-') {
      words.push(arg);
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq < 0 ? arg : arg.slice(0, eq);
    if (!Object.hasOwn(options, name) || (eq >= 0 && !options[name])) return undefined;
    short ||= !name.startsWith('--');
    if (!options[name]) {
      values[name.slice(2)] = true;
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || (eq < 0 && value.length > 1 && value.startsWith('-'))) return undefined;
    if (name === '--agent') agent = value;
    values[name.slice(2)] = value;
  }
  return { words, agent, parsed: short ? undefined : { values, positionals: words } };
}

main().catch((err) => {
  // The reader of our output went away (`| head`): quietly, as runtime.ts reportError.
  if (err && err.code === 'EPIPE') return;
  // No dist/ (not built, a build under way, a partial copy): said without a stack (bin/no-build.js,
  // a file of its own so that this one, compiled on every prompt, stays small).
  try {
    if (require('./no-build.js').reportMissingBuild(err, args)) return;
  } catch {
    // bin/ copied in part too: the error below, as before
  }
  process.stderr.write(`wmem: internal error, please report it with the lines below\n${(err && err.stack) || String(err)}\n`);
  process.exitCode = 1;
});
