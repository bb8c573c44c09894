// `wmem compact` goes through the lean entry dist/fast/fast-compact.cjs, compiled from the V8 code
// cache the build made of a compaction's run (dist/code-cache/fast-compact.cjs.v8,
// src/entries/build-code-cache.mjs compactRun; bin/wmem.js loadStage, the hook stages' checked
// loader: test/e2e/hook-code-cache.test.ts covers a stale, damaged or refused cache). The
// finishing (`compact --finish`, in the background) loads the bundle as before and never writes
// over the cache. Whichever way, a quick cut archives and keeps the same bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { codeCacheHeader } from '../helpers/code-cache.js';
import { ROOT, sandbox, type Sandbox } from '../helpers/cli.js';
import { finishingsDone, generatedHistory, leadingMarker, sessionWith } from '../helpers/history-e2e.js';

// Appends, as each Node process exits, whether it was the finishing and the scripts bin/wmem.js
// compiled through node:vm (given cached data, refused by V8).
const PROBE = `const vm = require('node:vm'); const seen = []; const Script = vm.Script;
vm.Script = class extends Script { constructor(source, options) { super(source, options); seen.push({ file: require('node:path').basename(options.filename), given: Boolean(options.cachedData), rejected: this.cachedDataRejected === true }); } };
process.on('exit', () => require('node:fs').appendFileSync(process.env.WMEM_TEST_SCRIPTS, JSON.stringify({ finish: process.argv.includes('--finish'), compact: process.argv.includes('compact'), seen }) + '\\n'));`;

const original = generatedHistory(25_000, 3);
let work: string;
let box: Sandbox;
beforeAll(async () => {
  expect(Buffer.byteLength(original)).toBeGreaterThan(10_000_000);
  work = mkdtempSync(path.join(os.tmpdir(), 'wmem-compact-cache-test-'));
  writeFileSync(path.join(work, 'probe.cjs'), PROBE);
  box = await sandbox();
});
afterAll(async () => {
  await box?.cleanup();
  rmSync(work, { recursive: true, force: true });
});

describe('the compact entry compiled from its code cache', () => {
  it('the build made it, stamped with the bundle it was made from', () => {
    const cache = readFileSync(path.join(ROOT, 'dist', 'code-cache', 'fast-compact.cjs.v8'));
    const data = cache.subarray(cache.indexOf(10) + 1);
    const source = readFileSync(path.join(ROOT, 'dist', 'fast', 'fast-compact.cjs'));
    expect(cache.toString('latin1', 0, cache.indexOf(10) + 1)).toBe(codeCacheHeader(source, data));
    // Compiled through node:vm, the bundle routes its import()s (the search index, chalk, execa).
    expect(source.toString('latin1')).toContain('\nconst __wmemImport =');
  });

  it("a quick cut's return is compiled from it, its finishing as before, and the cut is the same", async () => {
    const files = await sessionWith(box, original);
    const scripts = path.join(work, 'scripts.jsonl');
    const r = await box.run(['compact', '--keep-recent', '5', '--json'], { timeout: 120_000, env: { WMEM_TEST_SCRIPTS: scripts, NODE_OPTIONS: `--require ${path.join(work, 'probe.cjs')}` } });
    expect({ exitCode: r.exitCode, stderr: r.stderr }).toEqual({ exitCode: 0, stderr: '' });
    const result = JSON.parse(String(r.stdout));
    expect({ compacted: result.compacted, finishing: result.finishing }).toEqual({ compacted: true, finishing: 'background' });
    await finishingsDone(box.home);
    const runs = readFileSync(scripts, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { finish: boolean; compact: boolean; seen: { file: string; given: boolean; rejected: boolean }[] });
    expect(runs.filter((run) => run.compact && !run.finish).map((run) => run.seen)).toEqual([[{ file: 'fast-compact.cjs', given: true, rejected: false }]]);
    const finishings = runs.filter((run) => run.finish);
    expect(finishings.length).toBeGreaterThan(0);
    expect(finishings.flatMap((run) => run.seen)).toEqual([]);
    // What a quick cut leaves: the archive is the history's first bytes, the kept part its last.
    expect(existsSync(path.join(files.dir, 'state', 'compaction.json'))).toBe(false);
    const kept = await leadingMarker(files);
    const archived = await readFile(result.archivePath);
    expect(Buffer.concat([archived, kept!.rest]).equals(Buffer.from(original))).toBe(true);
  }, 180_000);
});
