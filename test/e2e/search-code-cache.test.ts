// `wmem search` goes through the lean entry dist/fast/fast-search.cjs, compiled from the V8 code
// cache of a search's run the build made (dist/code-cache/fast-search.cjs.v8,
// src/entries/build-code-cache.mjs searchRun; bin/wmem.js loadStage, the hook stages' checked
// loader: test/e2e/hook-code-cache.test.ts covers a stale, damaged or refused cache). A search that
// walks many lines turns V8's inlining off through node:v8's binding, without loading node:v8
// (and node:stream behind it). Whichever way, the hits are the same (test/e2e/search*.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { Script } from 'node:vm';
import os from 'node:os';
import path from 'node:path';
import { codeCacheHeader } from '../helpers/code-cache.js';
import { ROOT, runJson, sandbox, type Sandbox } from '../helpers/cli.js';
import { generatedHistory, sessionWith } from '../helpers/history-e2e.js';

// Writes, as the process exits, the scripts bin/wmem.js compiled through node:vm (given cached
// data, refused by V8), which bindings were asked for through process.binding, and whether
// node:v8 was loaded.
const PROBE = `const vm = require('node:vm'); const seen = []; const bound = []; const Script = vm.Script;
vm.Script = class extends Script { constructor(source, options) { super(source, options); seen.push({ file: require('node:path').basename(options.filename), given: Boolean(options.cachedData), rejected: this.cachedDataRejected === true }); } };
const binding = process.binding; process.binding = function (name) { bound.push(name); return binding.apply(this, arguments); };
process.on('exit', () => require('node:fs').writeFileSync(process.env.WMEM_TEST_SCRIPTS, JSON.stringify({ seen, bound, v8: process.moduleLoadList.includes('NativeModule v8') })));`;

let work: string;
let box: Sandbox;
beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'wmem-search-cache-test-'));
  writeFileSync(path.join(work, 'probe.cjs'), PROBE);
  box = await sandbox();
});
afterAll(async () => {
  await box?.cleanup();
  rmSync(work, { recursive: true, force: true });
});

describe('the search entry compiled from its code cache', () => {
  it('the build made it, stamped with the bundle it was made from', () => {
    const cache = readFileSync(path.join(ROOT, 'dist', 'code-cache', 'fast-search.cjs.v8'));
    const data = cache.subarray(cache.indexOf(10) + 1);
    const source = readFileSync(path.join(ROOT, 'dist', 'fast', 'fast-search.cjs'));
    expect(cache.toString('latin1', 0, cache.indexOf(10) + 1)).toBe(codeCacheHeader(source, data));
    // Compiled through node:vm, the bundle routes its import()s (the compaction's finishing, chalk).
    expect(source.toString('latin1')).toContain('\nconst __wmemImport =');
  });

  it("holds the bytecode of the build's search run, not its top level alone, from an ASCII bundle", () => {
    const cache = readFileSync(path.join(ROOT, 'dist', 'code-cache', 'fast-search.cjs.v8'));
    const data = cache.subarray(cache.indexOf(10) + 1);
    const source = readFileSync(path.join(ROOT, 'dist', 'fast', 'fast-search.cjs'), 'latin1');
    // A search then compiles none of its opening lazily (the session, the sources, the indexes
    // opened): the run's cache is ~4 times the top level's (a compile that runs nothing).
    const [head, tail] = (Module as unknown as { wrapper: [string, string] }).wrapper;
    expect(data.length).toBeGreaterThan(2 * new Script(head + source + tail).createCachedData().length);
    // ASCII: Node decodes it to a one-byte string (a two-byte one is twice the memory V8 scans).
    expect(source.match(/[^\x00-\x7f]/g) ?? []).toEqual([]);
  });

  it('a search that walks many lines is compiled from it, V8 tuned without node:v8, and answers', async () => {
    await sessionWith(box, generatedHistory(8_000, 3));
    await runJson(box, ['compact', '--keep-recent', '5', '--wait'], { timeout: 120_000 });
    const scripts = path.join(work, 'scripts.json');
    const r = await box.run(['search', 'list the files and fix what fails', '--json'], { timeout: 60_000, env: { WMEM_TEST_SCRIPTS: scripts, NODE_OPTIONS: `--require ${path.join(work, 'probe.cjs')}` } });
    expect({ exitCode: r.exitCode, stderr: r.stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(JSON.parse(String(r.stdout)).hits.length).toBeGreaterThan(0);
    const probe = JSON.parse(readFileSync(scripts, 'utf8')) as { seen: unknown[]; bound: string[]; v8: boolean };
    expect(probe.seen).toEqual([{ file: 'fast-search.cjs', given: true, rejected: false }]);
    // The search counted as heavy (its lines past search-corpus.ts HEAVY_LINES) and set V8's flag.
    expect(probe.bound).toContain('v8');
    expect(probe.v8).toBe(false);
    // --no-deprecation makes process.noDeprecation a read-only true: the same answer, from the cache.
    for (const flags of ['--no-deprecation', '--no-deprecation --pending-deprecation']) {
      const quiet = await box.run(['search', 'list the files and fix what fails', '--json'], { timeout: 60_000, env: { WMEM_TEST_SCRIPTS: scripts, NODE_OPTIONS: `--require ${path.join(work, 'probe.cjs')} ${flags}` } });
      expect({ flags, exitCode: quiet.exitCode, stderr: quiet.stderr, stdout: String(quiet.stdout) }).toEqual({ flags, exitCode: 0, stderr: '', stdout: String(r.stdout) });
      expect((JSON.parse(readFileSync(scripts, 'utf8')) as { seen: unknown[] }).seen).toEqual([{ file: 'fast-search.cjs', given: true, rejected: false }]);
    }
  }, 180_000);
});
