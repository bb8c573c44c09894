import { describe, expect, it } from 'vitest';
import { actionHintFor, budgetForTokensMax, metaFigures, neutralizeTags, pressureFor, renderMemory, renderMeta, type OverviewDigest } from '../../src/render/context.js';

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
    const meta = metaFigures({ tokensUsed: 45000, tokensMax: 128000, tokensSource: 'flag', messages: 42, memorySize: 2400, maintained: true });
    expect(meta).toEqual({
      tokens_used: 45000,
      tokens_max: 128000,
      tokens_percent: 35,
      messages_in_history: 42,
      working_memory_size: 2400,
      tokens_source: 'flag',
      action_hint: 'light_compression',
      pressure: 'safe',
      overview_maintained: true,
    });
    expect(renderMeta(meta)).toMatch(/^<context_meta>\n\{"tokens_used":45000,.*\}\nRemember to update working-memory\/overview.md and compact if needed.\n<\/context_meta>$/);
  });
});

describe('renderMemory', () => {
  it('wraps each part in its block', () => {
    const text = renderMemory({ overview: digest({ task: 'do it' }), scratchLines: ['- note'], workspace: 'ws', sessionState: 'st' }, 8000);
    expect(text).toBe(
      '<working_memory>\n# Working Memory\n\n## task\ndo it\n</working_memory>\n<session_state>\nst\n</session_state>\n<workspace_memory>\nws\n</workspace_memory>\n<scratch_notes>\n- note\n</scratch_notes>',
    );
  });

  it('leaves out whole sections to fit the budget and says so', () => {
    const big = 'x'.repeat(900);
    const text = renderMemory({ overview: digest({ task: 'keep me', progress: big, recent: big, pointers: big }), scratchLines: [] }, 2400);
    expect(text.length).toBeLessThanOrEqual(2400);
    expect(text).toContain('keep me');
    expect(text).toContain('## progress');
    expect(text).toMatch(/\[wmem: left out to fit 2400 characters: section (recent|pointers)/);
    expect(text).not.toMatch(/x{901}/);
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
