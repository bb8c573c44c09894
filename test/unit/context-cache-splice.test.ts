// The render cache's splice (store/context-cache.ts Head): a write that copies the head's bytes as
// read must leave the file that a whole write of the same object leaves, parsed. Random caches
// with strings chosen to look like the fields the splice looks for, and hand-written files laid
// out in ways no build writes (these must fall back to a whole write, or a miss).
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { cacheFile, readContextCache, writeContextCache, type ContextCache } from '../../src/store/context-cache.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const BLOCKS = ['working_memory', 'previous_session', 'session_state', 'workspace_memory', 'scratch_notes'];
let seed = 12345;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const pick = <T>(a: T[]) => a[Math.floor(rnd() * a.length)];
const NASTY = ['', 'x', '"', '\\', ',"session_state":{', '","session_state":{"', '\u2028', '→×', '😀', '\n', '}', ',"recall":', '<x>'];
const str = () => Array.from({ length: Math.floor(rnd() * 5) }, () => pick(NASTY)).join('');
const block = (name: string) => {
  const text = str();
  return rnd() < 0.5 ? { key: str(), length: text.length, text, digest: str(), ...(name === 'session_state' ? { decisions: [str()] } : {}) } : { key: str(), length: Math.floor(rnd() * 99), ...(name === 'session_state' ? { decisions: [str()] } : {}) };
};
const fresh = (): ContextCache => ({
  version: 3,
  ...(rnd() < 0.9 ? { overview: { text: str(), digest: { maintained: rnd() < 0.5, x: str() } as never, form: 2 } } : {}),
  memory: { key: str(), ...(rnd() < 0.5 ? { text: str() } : {}), digest: str(), blocks: Object.fromEntries(BLOCKS.map((b) => [b, block(b)])), ...(rnd() < 0.7 ? { recall: { key: str(), ...(rnd() < 0.5 ? { texts: { [str()]: str(), session_state: str() } } : {}) } } : {}) },
  ...(rnd() < 0.7 ? { memoryTokens: { digest: str(), length: 3, count: 4 } } : {}),
  ...(rnd() < 0.7 ? { history: { version: 1, consumed: 1, tailHash: str(), messages: 2, lastUsage: null, tokens: null, model: str() } } : {}),
});
/** What a whole write of `cache` gives, parsed. */
const wholeOf = async (cache: ContextCache) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-cache-whole-'));
  try {
    await writeContextCache(dir, { ...cache });
    return JSON.parse(readFileSync(cacheFile(dir), 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'wmem-cache-splice-'));

describe('the render cache: a spliced write against a whole write', () => {
  it('400 random caches written by this build, read, changed as the app changes them, written again', async () => {
    const dir = tmp();
    let spliced = 0;
    try {
      for (let i = 0; i < 400; i++) {
        await writeContextCache(dir, fresh());
        // A space in the head: a splice keeps it, a whole write does not.
        writeFileSync(cacheFile(dir), readFileSync(cacheFile(dir), 'utf8').replace('{"version":3,', '{"version":3, '), { mode: 0o600 });
        const read = await readContextCache(dir);
        const m = read.memory!;
        const next = fresh();
        const r = rnd();
        if (r < 0.6) read.memory = { ...m, text: next.memory!.text, digest: next.memory!.digest, blocks: { ...m.blocks, session_state: next.memory!.blocks!.session_state }, ...(next.memory!.recall ? { recall: next.memory!.recall } : {}) };
        else if (r < 0.7) read.memory = { ...m, blocks: { ...m.blocks, working_memory: next.memory!.blocks!.working_memory, session_state: next.memory!.blocks!.session_state } };
        else if (r < 0.8) read.overview = next.overview;
        else read.memory = { key: m.key, digest: 'd', blocks: Object.fromEntries(BLOCKS.map((b) => [b, b === 'session_state' ? next.memory!.blocks!.session_state : m.blocks![b]])) };
        if (rnd() < 0.5) read.memoryTokens = next.memoryTokens ?? { digest: 'z', length: 1, count: 1 };
        if (rnd() < 0.5 && next.history) read.history = next.history;
        if (rnd() < 0.3) gc();
        const want = await wholeOf(read);
        await writeContextCache(dir, read);
        const after = readFileSync(cacheFile(dir));
        if (after.toString('utf8').startsWith('{"version":3, ')) spliced++;
        expect(JSON.parse(after.toString('utf8'))).toEqual(want);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // The draws must reach the splice often, or the comparison above proves little.
    expect(spliced).toBeGreaterThan(100);
  });

  const handWritten = async (text: string, change: (c: ContextCache) => void, collect = false) => {
    const dir = tmp();
    try {
      writeFileSync(cacheFile(dir), text, { mode: 0o600 });
      let read = await readContextCache(dir);
      change(read);
      if (collect) {
        await new Promise((r) => setTimeout(r, 0));
        gc();
        gc();
      }
      const want = await wholeOf(read);
      await writeContextCache(dir, read);
      const got = readFileSync(cacheFile(dir), 'utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(got);
      } catch (e) {
        parsed = `INVALID JSON: ${(e as Error).message}`;
      }
      return { got, parsed, want };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const newState = (c: ContextCache) => {
    c.memory = { ...c.memory!, digest: 'NEW', text: 'NEW TEXT', blocks: { ...c.memory!.blocks, session_state: { key: 'NEW', length: 1 } } };
  };
  const blocks = (extra = '') => `"working_memory":{"key":"w","length":1},"previous_session":{"key":"p","length":1},"workspace_memory":{"key":"ws","length":1},"scratch_notes":{"key":"s","length":1}${extra}`;

  it('an overview after the memory part (hand-written): written whole', async () => {
    const r = await handWritten(`{"version":3,"memory":{"key":"k","blocks":{${blocks()},"session_state":{"key":"old","length":1}},"text":"OLD","digest":"OLD"},"overview":{"text":"OV","digest":{"maintained":true},"form":2},"recall":null}`, newState);
    expect(r.parsed).toEqual(r.want);
  });
  it('a second session_state field after the real one: written whole', async () => {
    const r = await handWritten(`{"version":3,"memory":{"key":"k","blocks":{${blocks()},"session_state":{"key":"old","length":1}},"text":"OLD","digest":"OLD"},"history":{"version":1,"x":1,"session_state":{}},"recall":null}`, newState);
    expect(r.parsed).toEqual(r.want);
  });
  it('a block named like an array index (listed first whatever the file): written whole', async () => {
    const r = await handWritten(`{"version":3,"memory":{"key":"k","blocks":{${blocks()},"session_state":{"key":"old","length":1},"7":{"key":"seven","length":1}},"text":"OLD","digest":"OLD"},"recall":null}`, newState);
    expect(r.parsed).toEqual(r.want);
  });
  it('a field present but undefined: left out, as a whole write leaves it', async () => {
    const r = await handWritten(`{"version":3,"memory":{"key":"k","blocks":{${blocks()},"session_state":{"key":"old","length":1}},"text":"OLD","digest":"OLD"},"memoryTokens":{"digest":"d","length":1,"count":1},"recall":null}`, (c) => {
      newState(c);
      c.memoryTokens = undefined;
    });
    expect(r.parsed).toEqual(r.want);
  });
  it('a block of the head replaced by another name: written whole', async () => {
    const r = await handWritten(`{"version":3,"memory":{"key":"k","blocks":{"working_memory":{"key":"w","length":1},"previous_session":{"key":"p","length":1},"workspace_memory":{"key":"ws","length":1},"bogus":{"key":"b","length":1},"session_state":{"key":"old","length":1}},"text":"OLD","digest":"OLD"},"recall":null}`, (c) => {
      const b = c.memory!.blocks!;
      c.memory = { key: 'k', text: 'NEW TEXT', digest: 'NEW', blocks: { working_memory: b.working_memory, previous_session: b.previous_session, workspace_memory: b.workspace_memory, scratch_notes: { key: 'NEW s', length: 1 }, session_state: { key: 'NEW', length: 1 } } };
    });
    expect(r.parsed).toEqual(r.want);
  });
  it('the same after the head\'s old block was collected: never taken for the one held', async () => {
    const r = await handWritten(`{"version":3,"memory":{"key":"k","blocks":{"working_memory":{"key":"w","length":1},"previous_session":{"key":"p","length":1},"workspace_memory":{"key":"ws","length":1},"bogus":{"key":"b","length":1},"session_state":{"key":"old","length":1}},"text":"OLD","digest":"OLD"},"recall":null}`, (c) => {
      const b = c.memory!.blocks!;
      c.memory = { key: 'k', text: 'NEW TEXT', digest: 'NEW', blocks: { working_memory: b.working_memory, previous_session: b.previous_session, workspace_memory: b.workspace_memory, scratch_notes: { key: 'NEW s', length: 1 }, session_state: { key: 'NEW', length: 1 } } };
    }, true);
    expect(r.parsed).toEqual(r.want);
  });
});
describe('reading a cache laid out oddly', () => {
  it('a primitive overview or a null block: the cache read as parsed, only the splice given up', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-cache-odd-'));
    try {
      for (const text of [
        `{"version":3,"overview":"x","memory":{"key":"k","blocks":{"a":{"key":"a"},"session_state":{"key":"s"}},"text":"T","digest":"D"},"history":{"version":1},"recall":null}`,
        `{"version":3,"memory":{"key":"k","blocks":{"a":null,"session_state":{"key":"s"}},"text":"T","digest":"D"},"history":{"version":1},"recall":null}`,
      ]) {
        writeFileSync(cacheFile(dir), text, { mode: 0o600 });
        const read = await readContextCache(dir);
        expect(read.memory?.text).toBe('T');
        expect(read.history).toEqual({ version: 1 });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
