// recutSessionState (render/context.ts) against renderMemory itself: over random memories, cut or
// not, a session state changed in place (the same lengths: an open error seen once more) or not,
// whenever the recut answers, its text is the one renderMemory gives for the new session state.
import { describe, expect, it } from 'vitest';
import { recutSessionState, renderMemory, type MemoryInputs, type OverviewDigest } from '../../src/render/context.js';

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
