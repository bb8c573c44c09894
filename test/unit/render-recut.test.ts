// recutSessionState and recutMemory (render/context.ts) against renderMemory itself: over random memories, cut or
// not, a session state changed in place (the same lengths: an open error seen once more) or not,
// whenever the recut answers, its text is the one renderMemory gives for the new session state.
import { describe, expect, it } from 'vitest';
import { MEMORY_BLOCKS, RELATIVE_WHERE, cutMemory, joinBlocks, recutMemory, recutSessionState, renderBlock, renderMemory, type MemoryInputs, type OverviewDigest } from '../../src/render/context.js';

/** A small seeded generator (mulberry32): the same draws every run. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', 'b', 'x', '1', '9', ' ', '-', '×', '`', '<', '<session_state>', '</session_state', '<scratch_notes>', '\u202e', 'é'];

function drawInputs(r: () => number): MemoryInputs {
  const int = (n: number) => Math.floor(r() * n);
  const word = (max: number) => Array.from({ length: 1 + int(max) }, () => PIECES[int(PIECES.length)]).join('');
  const lines = (n: number, max: number) => Array.from({ length: n }, () => `- ${word(max)}`);
  const ids = ['task', 'progress', 'decisions', 'context', 'open', 'recent', 'pointers'];
  const overview: OverviewDigest = { preamble: '# Working Memory\n', sections: ids.map((id) => ({ id, text: `## ${id}\n${lines(int(12), 60).join('\n')}`, empty: r() < 0.15 })), maintained: true };
  return { overview, scratchLines: lines(int(40), 50), workspace: r() < 0.7 ? lines(1 + int(15), 50).join('\n') : undefined, handoff: r() < 0.4 ? lines(1 + int(6), 40).join('\n') : undefined, sessionState: r() < 0.9 ? lines(1 + int(8), 50).join('\n') : undefined };
}

/** The same text with one to three characters swapped for others (mostly digits: a count that went up). */
function inPlace(r: () => number, text: string | undefined): string | undefined {
  if (!text) return text;
  const chars = [...text];
  for (let n = 1 + Math.floor(r() * 3); n > 0; n--) {
    // Mostly a digit for a letter or digit (a count that went up), which keeps most lines' lengths.
    const at = Math.floor(r() * chars.length);
    if (r() < 0.1) chars[at] = PIECES[Math.floor(r() * PIECES.length)];
    else if (/[a-z0-9]/.test(chars[at])) chars[at] = String(Math.floor(r() * 10));
  }
  return chars.join('');
}

describe('recutSessionState', () => {
  it('answers only with the text renderMemory gives', () => {
    const r = rng(27);
    let answered = 0;
    let cut = 0;
    for (let i = 0; i < 600; i++) {
      const before = drawInputs(r);
      const budget = [1200, 2400, 4000, 8000][Math.floor(r() * 4)];
      const after = { ...before, sessionState: r() < 0.8 ? inPlace(r, before.sessionState) : drawInputs(r).sessionState };
      const text = renderMemory(before, budget);
      const again = recutSessionState(text, before.sessionState, after.sessionState);
      if (again === undefined) continue;
      answered++;
      if (text.includes('[wmem: left out to fit')) cut++;
      expect(again).toBe(renderMemory(after, budget));
    }
    // The draws must reach the cases that matter: answers, cut parts among them (the seed is fixed).
    expect(answered).toBeGreaterThan(100);
    expect(cut).toBeGreaterThan(40);
  });

  it('refuses a changed line length, and keeps a cut that does not show the block', () => {
    const inputs = (state: string): MemoryInputs => ({ overview: { preamble: '', sections: [{ id: 'task', text: `## task\n${'- long entry here\n'.repeat(200)}`, empty: false }], maintained: true }, scratchLines: [], sessionState: state });
    const cut = renderMemory(inputs('Open errors:\n- [test] FAIL (#ab, 8×)'), 1200);
    expect(recutSessionState(renderMemory(inputs('Open errors:\n- [test] FAIL (#ab, 9×)'), 1200), 'Open errors:\n- [test] FAIL (#ab, 9×)', 'Open errors:\n- [test] FAIL (#ab, 10×)')).toBeUndefined();
    expect(recutSessionState(cut, 'Open errors:\n- [test] FAIL (#ab, 8×)', 'Open errors:\n- [test] FAIL (#ab, 9×)')).toBe(renderMemory(inputs('Open errors:\n- [test] FAIL (#ab, 9×)'), 1200));
  });
});

// recutMemory (render/context.ts) against renderMemory: the session state changed any way (lines
// longer, shorter, added, gone: a new error, a count 9 → 10), the other parts standing in by what
// cutMemory recorded of them; whenever the recut answers, its text is renderMemory's.
describe('recutMemory', () => {
  const WHERES = [RELATIVE_WHERE, { overview: '/h/s/working-memory/overview.md', scratch: '/h/s/working-memory/scratch.md', detailDir: '/h/s/working-memory/detail', compact: '/compact' }];

  /** A session state changed any way: lines grown or shrunk, added or removed, or another one. */
  function changed(r: () => number, text: string | undefined): string | undefined {
    if (!text || r() < 0.1) return drawInputs(r).sessionState;
    const lines = text.split('\n');
    const at = Math.floor(r() * lines.length);
    const pick = r();
    if (pick < 0.4) lines[at] = lines[at] + '9'.repeat(1 + Math.floor(r() * 3));
    else if (pick < 0.6) lines[at] = lines[at].slice(0, Math.max(2, lines[at].length - 1 - Math.floor(r() * 5)));
    else if (pick < 0.8) lines.splice(at, 0, `- new ${'x'.repeat(Math.floor(r() * 40))}`);
    else if (lines.length > 1) lines.splice(at, 1);
    return lines.join('\n');
  }

  const fitsWhole = (inputs: MemoryInputs, budget: number) => joinBlocks(MEMORY_BLOCKS.map((b) => renderBlock(inputs, b))).length <= budget;

  it('answers only with the text renderMemory gives', () => {
    const r = rng(17);
    let answered = 0;
    let grown = 0;
    for (let i = 0; i < 800; i++) {
      const drawn = drawInputs(r);
      const where = WHERES[Math.floor(r() * WHERES.length)];
      const pinned = drawn.workspace && r() < 0.4 ? drawn.workspace.split('\n').filter(() => r() < 0.3) : undefined;
      const before: MemoryInputs = { ...drawn, where, workspacePinned: pinned, overview: r() < 0.1 ? { ...drawn.overview, problem: 'a broken heading' } : drawn.overview };
      const budget = [1200, 2400, 4000, 8000][Math.floor(r() * 4)];
      const after = { ...before, sessionState: changed(r, before.sessionState) };
      const { text, records } = cutMemory(before, budget);
      expect(text).toBe(renderMemory(before, budget));
      if (!records || fitsWhole(after, budget)) continue;
      const again = recutMemory(text, records, after.sessionState, budget, where);
      if (again === undefined) continue;
      answered++;
      if (renderBlock(after, 'session_state').length !== renderBlock(before, 'session_state').length) grown++;
      expect(again).toBe(renderMemory(after, budget));
    }
    // The draws must reach the cases that matter (the seed is fixed): answers whose block changed length.
    expect(answered).toBeGreaterThan(150);
    expect(grown).toBeGreaterThan(100);
  });

  it('refuses records that are not the ones it writes', () => {
    const inputs = (state: string): MemoryInputs => ({ overview: { preamble: '', sections: [{ id: 'task', text: `## task\n${'- long entry here\n'.repeat(200)}`, empty: false }], maintained: true }, scratchLines: ['- a note'], sessionState: state });
    const before = 'Open errors:\n- [test] FAIL (#ab, 9×)';
    const after = 'Open errors:\n- [test] FAIL (#ab, 10×)';
    // At 1200 characters the longer line takes the room of one entry of the task: the cut changes, no recut.
    const tight = cutMemory(inputs(before), 1200);
    expect(recutMemory(tight.text, tight.records!, after, 1200, RELATIVE_WHERE)).toBeUndefined();
    const { text, records } = cutMemory(inputs(before), 1210);
    expect(recutMemory(text, records!, after, 1210, RELATIVE_WHERE)).toBe(renderMemory(inputs(after), 1210));
    expect(recutMemory(text, { ...records, scratch_notes: undefined }, after, 1210, RELATIVE_WHERE)).toBeUndefined();
    const task = records!.working_memory![0];
    expect(recutMemory(text, { ...records, working_memory: [[...task.slice(0, 8), ['x']]] }, after, 1210, RELATIVE_WHERE)).toBeUndefined();
    expect(recutMemory(text, { ...records, working_memory: [task.slice(0, 8)] }, after, 1210, RELATIVE_WHERE)).toBeUndefined();
    // A record that is not of the cut the text holds (it kept none): the cut chosen again differs from it.
    expect(recutMemory(text, { ...records, working_memory: [[...task.slice(0, 7), 0, task[8]]] }, after, 1210, RELATIVE_WHERE)).toBeUndefined();
  });

  it('refuses damaged numbers in a record without laying out what they name', () => {
    const inputs = (state: string): MemoryInputs => ({ overview: { preamble: '', sections: [{ id: 'task', text: `## task\n${'- long entry here\n'.repeat(200)}`, empty: false }], maintained: true }, scratchLines: ['- a note'], sessionState: state });
    const after = 'Open errors:\n- [test] FAIL (#ab, 10×)';
    const { text, records } = cutMemory(inputs('Open errors:\n- [test] FAIL (#ab, 9×)'), 1210);
    const task = records!.working_memory![0];
    const damaged = (at: number, value: number) => ({ ...records, working_memory: [task.map((v, i) => (i === at ? value : v))] });
    // [label, header, flags, share, rank, count, pinned, taken, sizes]: a count of 3e8 entries or a
    // header of 1e12 characters would exhaust the heap or throw; a count its sizes do not account
    // for is not one cutMemory writes.
    expect(recutMemory(text, damaged(5, 3e8), after, 1210, RELATIVE_WHERE)).toBeUndefined();
    expect(recutMemory(text, damaged(1, 1e12), after, 1210, RELATIVE_WHERE)).toBeUndefined();
    expect(recutMemory(text, { ...records, working_memory: [[...task.slice(0, 8), [1]]] }, after, 1210, RELATIVE_WHERE)).toBeUndefined();
  });
});
