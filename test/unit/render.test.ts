import { describe, expect, it } from 'vitest';
import { resolveWindow } from '../../src/memory/meter.js';
import { modelWindow } from '../../src/memory/model-windows.js';
import { actionHintFor, budgetForTokensMax, metaFigures, neutralizeControls, neutralizeTags, pressureFor, renderMemory, renderMeta, type OverviewDigest } from '../../src/render/context.js';

const digest = (sections: Record<string, string>): OverviewDigest => ({
  preamble: '# Working Memory\n',
  sections: Object.entries(sections).map(([id, body]) => ({ id, text: `## ${id}\n${body}`, empty: body === '' })),
  maintained: Object.values(sections).some(Boolean),
});

describe('thresholds', () => {
  it.each([
    [0, 'normal', 'safe'],
    [19, 'normal', 'safe'],
    [20, 'light_compression', 'safe'],
    [40, 'medium_compression', 'safe'],
    [60, 'heavy_compression', 'safe'],
    [74, 'heavy_compression', 'safe'],
    [75, 'emergency_compression', 'moderate'],
    [89, 'emergency_compression', 'moderate'],
    [90, 'emergency_compression', 'high'],
  ])('%i%% → %s, %s', (percent, hint, pressure) => {
    expect(actionHintFor(percent)).toBe(hint);
    expect(pressureFor(percent)).toBe(pressure);
  });

  it.each([
    [1_000_000, 8000],
    [200_000, 8000],
    [128_000, 6000],
    [64_000, 4000],
    [32_000, 3200],
  ])('budget for %i tokens is %i chars', (tokens, budget) => {
    expect(budgetForTokensMax(tokens)).toBe(budget);
  });

  it('computes the meta figures', () => {
    const meta = metaFigures({ tokensUsed: 45000, tokensSource: 'flag', window: { tokensMax: 128000, source: 'flag' }, messages: 42, memorySize: 2400, maintained: true });
    expect(meta).toEqual({
      tokens_used: 45000,
      tokens_max: 128000,
      tokens_percent: 35,
      tokens_source: 'flag',
      tokens_max_source: 'flag',
      messages_in_history: 42,
      working_memory_size: 2400,
      action_hint: 'light_compression',
      pressure: 'safe',
      overview_maintained: true,
    });
    expect(Object.keys(meta).slice(0, 5)).toEqual(['tokens_used', 'tokens_max', 'tokens_percent', 'tokens_source', 'tokens_max_source']);
  });

  const where = { overview: '/h/s/wm/overview.md', scratch: '/h/s/wm/scratch.md', detailDir: '/h/s/wm/detail', compact: '/compact' };

  it('names the real paths and the way to compact of the session\'s agent', () => {
    const meta = metaFigures({ tokensUsed: 80000, tokensSource: 'usage', window: { tokensMax: 100000, source: 'model', model: 'claude-x' }, messages: 0, memorySize: 10, maintained: true });
    const text = renderMeta(meta, where);
    expect(text).toMatch(/^<context_meta>\n\{"tokens_used":80000,.*"model":"claude-x".*\}\n/);
    expect(text).toContain('Update /h/s/wm/overview.md as you work (details: /h/s/wm/detail/, notes: /h/s/wm/scratch.md); compact with /compact when needed.');
    expect(text).toContain('Context is 80% full: save state to the overview and compact now (/compact).');
    expect(text).not.toContain('estimate');
  });

  it('says when a figure is an estimate or an assumed window', () => {
    const meta = metaFigures({ tokensUsed: 300, tokensSource: 'estimate', window: { tokensMax: 200000, source: 'default', model: 'mystery-1' }, messages: 0, memorySize: 10, maintained: false });
    const text = renderMeta(meta, where);
    expect(text).toContain('tokens_used is an estimate');
    expect(text).toContain('tokens_max is assumed (mystery-1 is not a model wmem knows)');
    expect(text).toContain('/h/s/wm/overview.md is still the bare template');
  });

  it('keeps a path that looks like a block tag from closing the block', () => {
    const meta = metaFigures({ tokensUsed: 1, tokensSource: 'flag', window: { tokensMax: 100, source: 'flag' }, messages: 0, memorySize: 0, maintained: true });
    const text = renderMeta(meta, { ...where, overview: '/x</context_meta>/overview.md' });
    expect(text.match(/<\/context_meta>/g)).toHaveLength(1);
  });
});

describe('renderMemory', () => {
  it('wraps each part in its block', () => {
    const text = renderMemory({ overview: digest({ task: 'do it' }), scratchLines: ['- note'], workspace: 'ws', sessionState: 'st' }, 8000);
    expect(text).toBe(
      '<working_memory>\n# Working Memory\n\n## task\ndo it\n</working_memory>\n<session_state>\nst\n</session_state>\n<workspace_memory>\nws\n</workspace_memory>\n<scratch_notes>\n- note\n</scratch_notes>',
    );
  });

  // Issue 28: over the budget, every non-empty part keeps a share instead of whole sections vanishing.
  it('keeps a share of every section, cut at entry boundaries with a marker, and says what was left out', () => {
    const list = (topic: string, n: number) => Array.from({ length: n }, (_, i) => `- ${topic} ${String(i).padStart(2, '0')} ${'x'.repeat(60)}`).join('\n');
    const overview = digest({ task: 'keep me', progress: list('progress', 20), decisions: list('decision', 40), context: list('fact', 10), open: list('question', 5), recent: list('action', 10) });
    const text = renderMemory({ overview, scratchLines: [] }, 2400);
    expect(text.length).toBeLessThanOrEqual(2400);
    for (const id of ['task', 'progress', 'decisions', 'context', 'open', 'recent']) expect(text).toContain(`## ${id}\n`);
    for (const entry of ['keep me', 'progress 00', 'decision 39', 'fact 00', 'question 00', 'action 09']) expect(text).toContain(entry);
    // The task and progress keep their first entries; decisions and recent actions their newest.
    expect(text).not.toContain('decision 00');
    expect(text).toMatch(/## decisions\n\[wmem: \d+ earlier entries of this section: wmem show overview\]\n- decision/);
    expect(text).toMatch(/- progress \d+ x+\n\[wmem: \d+ more entries of this section: wmem show overview\]/);
    expect(text).toMatch(/\[wmem: left out to fit 2400 characters: \d+ entries of section progress, \d+ entries of section decisions/);
  });

  it('never cuts inside an entry: continuation lines and code fences go with their item', () => {
    const item = (i: number) => `- item ${i} starts\n  continues here\n\n  \`\`\`\n  code ${i}\n\n  more code\n  \`\`\`\n`;
    const body = Array.from({ length: 30 }, (_, i) => item(i)).join('');
    const text = renderMemory({ overview: digest({ task: 't', progress: body }), scratchLines: [] }, 1200);
    expect(text.length).toBeLessThanOrEqual(1200);
    const shown = [...text.matchAll(/- item (\d+) starts/g)].map((m) => Number(m[1]));
    expect(shown.length).toBeGreaterThan(0);
    for (const i of shown) expect(text).toContain(item(i).trimEnd());
  });

  it('keeps what the user asked to remember before other workspace entries', () => {
    const lines = Array.from({ length: 60 }, (_, i) => `- [project] fact ${i} ${'y'.repeat(50)} (m-${i})`);
    const pinned = [lines[41], lines[57]];
    const decisions = Array.from({ length: 40 }, (_, i) => `- decision ${i} ${'z'.repeat(50)}`).join('\n');
    const text = renderMemory({ overview: digest({ task: 't', decisions }), scratchLines: [], workspace: lines.join('\n'), workspacePinned: pinned }, 2000);
    expect(text.length).toBeLessThanOrEqual(2000);
    for (const line of pinned) expect(text).toContain(line);
    expect(text).toMatch(/\[wmem: \d+ more entries of workspace memory: wmem memories, wmem search\]/);
    // Listed in the block's own order.
    expect(text.indexOf('fact 41')).toBeLessThan(text.indexOf('fact 57'));
  });

  it('never shows the decisions whole while every pinned workspace entry is left out', () => {
    const pinned = `- [feedback] ${'p'.repeat(700)} (m-1)`;
    const decisions = '- the one decision we made';
    const inputs = { overview: digest({ task: 't'.repeat(300), decisions }), scratchLines: [], workspace: pinned, workspacePinned: [pinned] };
    for (const budget of [900, 1000, 1100, 1200]) {
      const text = renderMemory(inputs, budget);
      expect(text.length).toBeLessThanOrEqual(budget);
      expect(text.includes(decisions) && !text.includes(pinned)).toBe(false);
    }
    expect(renderMemory(inputs, 2000)).toContain(pinned);
  });

  it('renders the parts uncut and byte for byte when they fit', () => {
    const progress = '- a\n  more of a\n\nA paragraph.\n\n\n- b';
    const text = renderMemory({ overview: digest({ task: 't', progress }), scratchLines: [] }, 8000);
    expect(text).toContain(`## progress\n${progress}\n`);
    expect(text).not.toContain('[wmem:');
  });

  it('shows an empty section\'s guidance only while there is room, and never counts it as left out', () => {
    const overview: OverviewDigest = { preamble: '', sections: [{ id: 'task', text: `## task\n${'- a line of the task\n'.repeat(30).trim()}`, empty: false }, { id: 'open', text: '## open\n<!-- Unresolved errors. -->', empty: true }], maintained: true };
    expect(renderMemory(overview.sections[1] ? { overview, scratchLines: [] } : { overview, scratchLines: [] }, 8000)).toContain('<!-- Unresolved errors. -->');
    const tight = renderMemory({ overview, scratchLines: [] }, 500);
    expect(tight.length).toBeLessThanOrEqual(500);
    expect(tight).not.toContain('Unresolved errors');
    expect(tight).not.toMatch(/left out[^\n]*section open/);
  });

  it('cuts the oldest scratch notes first', () => {
    const notes = Array.from({ length: 100 }, (_, i) => `- note ${String(i).padStart(3, '0')} ${'y'.repeat(60)}`);
    const text = renderMemory({ overview: digest({ task: 't' }), scratchLines: notes }, 3200);
    expect(text.length).toBeLessThanOrEqual(3200);
    expect(text).toContain('note 099');
    expect(text).not.toContain('note 000');
    expect(text).toMatch(/\d+ older scratch notes/);
  });

  it('neutralises block tags in content', () => {
    expect(neutralizeTags('a </working_memory> b <context_meta> < / scratch_notes> <SESSION_STATE>')).toBe(
      'a &lt;/working_memory> b &lt;context_meta> &lt; / scratch_notes> &lt;SESSION_STATE>',
    );
    expect(neutralizeTags('<working_memory_extra> <div>')).toBe('<working_memory_extra> <div>');
  });
});

describe('resolveWindow', () => {
  it.each([
    [{ flag: 5000, setting: 7000, model: 'claude-sonnet-4-5' }, 5000, 'flag'],
    [{ setting: 7000, agentWindow: 258400, model: 'gpt-5.1' }, 7000, 'setting'],
    [{ agentWindow: 258400, model: 'gpt-5.1' }, 258400, 'agent'],
    [{ model: 'claude-sonnet-4-5' }, 200000, 'model'],
    [{ model: 'claude-sonnet-4-5[1m]' }, 1000000, 'model'],
    [{ model: 'no-such-model' }, 200000, 'default'],
    [{}, 200000, 'default'],
    [{ agentDefault: 1_000_000 }, 1000000, 'default'],
    [{ model: 'claude-opus-5-5', agentDefault: 1_000_000 }, 1000000, 'model'],
    [{ model: 'claude-opus-4-6' }, 200000, 'model'],
    // More in use than the base window: the [1m] variant, which answers under the base name.
    [{ model: 'claude-sonnet-4-5', reported: 250000 }, 1000000, 'model'],
    [{ model: 'claude-sonnet-4-5', reported: 150000 }, 200000, 'model'],
    [{ model: 'gpt-5.1', reported: 500000 }, 400000, 'model'],
  ] as const)('%j → %i from %s', (inputs, tokensMax, source) => {
    expect(resolveWindow(inputs)).toMatchObject({ tokensMax, source });
  });
});

describe('modelWindow', () => {
  it.each([
    ['claude-3-5-sonnet-20241022', 200000],
    ['claude-haiku-4-5-20251001', 200000],
    ['anthropic/claude-opus-4-1', 200000],
    ['claude-opus-5-5', 1000000],
    ['claude-sonnet-4-6', 200000],
    ['claude-opus-4-6[1m]', 1000000],
    ['sonnet', 1000000],
    ['gpt-5.1', 400000],
    ['claude-opus-4-1[1M]', 1000000],
    ['gemini-2.5-pro', 1048576],
    ['', undefined],
    ['llama-3-8b', undefined],
  ])('%s → %s', (model, window) => {
    expect(modelWindow(model)).toBe(window);
  });
});

describe('neutralizeControls', () => {
  it.each([
    ['plain text\twith tab\nand newline', 'plain text\twith tab\nand newline'],
    ['a\u202Eb', 'a[U+202E]b'],
    ['\u0000\u001B[31m', '[U+0000][U+001B][31m'],
    ['\u200F\u061C', '[U+200F][U+061C]'],
  ])('%j → %j', (input, output) => {
    expect(neutralizeControls(input)).toBe(output);
    expect(neutralizeControls(input)).toBe(output); // a /g pattern keeps no state between calls
  });
});
