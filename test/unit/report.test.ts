// The report, pure parts: the series read from each transcript format the fixtures hold, the
// downsampling (never loses a peak or a compaction), the page's escaping (no text from memory
// becomes markup or script), and determinism.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { FIXTURES } from '../helpers/cli.js';
import { downsample, peakOf, seriesOf, type SeriesPoint } from '../../src/report/series.js';
import { chartSvg, renderReport, type ReportData } from '../../src/report/html.js';
import { markdownToHtml } from '../../src/report/markdown.js';
import { everyAgentsUsage } from '../../src/report/load.js';
import { findAgent } from '../../src/agents/registry.js';

const fixture = (rel: string) => readFileSync(path.join(FIXTURES, rel), 'utf8');

describe('the series, per transcript format', () => {
  it('Claude Code: one point per assistant message (its content blocks share one usage), input + cache', () => {
    const text = fixture('claude-code-log/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl');
    const series = seriesOf(text);
    const ids = new Set<string>();
    for (const line of text.split('\n').filter(Boolean)) {
      const v = JSON.parse(line);
      if (v.type === 'assistant' && !v.isSidechain && v.message?.usage && v.message.model !== '<synthetic>') ids.add(v.message.id);
    }
    expect(series.points.length).toBe(ids.size);
    expect(series.points.every((p) => p.tokens > 0 && p.time)).toBe(true);
    expect(series.model).toMatch(/^claude-/);
  });

  it('Claude Code: a compact_boundary is a compaction, with the tokens before it', () => {
    const series = seriesOf(fixture('claude-code-log-upstream/dag_compact_after_rewind.jsonl'));
    expect(series.compactions).toHaveLength(1);
    expect(series.compactions[0].before).toBeGreaterThan(0);
  });

  it('Codex: token_count events, and the window the rollout reports', () => {
    const series = seriesOf(fixture('localpush-codex/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl'));
    expect(series.points.length).toBeGreaterThan(0);
    expect(series.window).toBeGreaterThan(100_000);
  });

  it('Kimi CLI: _usage records', () => {
    const series = seriesOf(fixture('kimi-cli/pr127-context/531d195b-6436-426e-b010-4bf723a992de.jsonl'));
    expect(series.points.length).toBeGreaterThan(10);
  });
});

describe("the series, with each agent's own rules (the registry's usageLines)", () => {
  const rulesOf = async (id: string) => (await findAgent(id)!.usageLines!());

  it('Gemini CLI: a message written again under its id counts once; a resume that writes the compressed history again is no second compaction', async () => {
    const rules = await rulesOf('gemini');
    expect(seriesOf(fixture('../gemini/chat-resumed.jsonl'), rules).points.map((p) => p.tokens)).toEqual([150000, 150000]);
    const compressed = seriesOf(fixture('../gemini/chat-compressed.jsonl'), rules);
    expect(compressed.compactions).toMatchObject([{ n: 4, before: 600000 }]);
    expect(compressed.compactions[0].time).toMatch(/^2026-11-25T/);
    expect(compressed.points.every((p) => p.time && p.model === 'gemini-2.5-flash')).toBe(true);
  });

  it('OpenCode: the prompt is input plus cached, the time its creation, a compaction part a compaction', async () => {
    const lines = (JSON.parse(fixture('../opencode/messages-before-compaction.json')) as unknown[]).map((m) => JSON.stringify(m)).join('\n');
    const series = seriesOf(lines, await rulesOf('opencode'));
    expect(series.points.map((p) => p.tokens)).toEqual([1500, 1500, 3700]);
    expect(series.points.every((p) => p.time?.startsWith('2026-') && p.model === 'm1')).toBe(true);
    expect(series.compactions).toMatchObject([{ n: 3, before: 3700 }]);
  });

  it("wmem's own history, read with every registered agent's rules, gives each agent's series", async () => {
    const every = await everyAgentsUsage();
    const files: [string, string][] = [
      ['claude', 'claude-code-log-upstream/dag_compact_after_rewind.jsonl'],
      ['codex', '../codex/rollout-auto-compacted.jsonl'],
      ['gemini', '../gemini/chat-compressed.jsonl'],
    ];
    for (const [id, file] of files) expect(seriesOf(fixture(file), every), file).toEqual(seriesOf(fixture(file), await rulesOf(id)));
    expect(seriesOf(fixture('kimi-cli/pr127-context/531d195b-6436-426e-b010-4bf723a992de.jsonl'), every)).toEqual(seriesOf(fixture('kimi-cli/pr127-context/531d195b-6436-426e-b010-4bf723a992de.jsonl')));
  });
});

describe('downsampling', () => {
  const arbitrary = fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 5000 }).chain((tokens) =>
    fc.tuple(fc.constant(tokens.map((t, n): SeriesPoint => ({ n, tokens: t }))), fc.array(fc.integer({ min: 0, max: tokens.length }), { maxLength: 20 }), fc.integer({ min: 10, max: 400 })),
  );

  it('keeps the peak, the last point and both sides of every compaction, within about the budget', () => {
    fc.assert(
      fc.property(arbitrary, ([points, at, max]) => {
        const compactions = at.map((n) => ({ n }));
        const kept = downsample(points, compactions, max);
        const ns = new Set(kept.map((p) => p.n));
        expect(ns.has(peakOf(points)!.n)).toBe(true);
        expect(ns.has(points.length - 1)).toBe(true);
        for (const c of compactions) {
          if (c.n > 0) expect(ns.has(Math.min(points.length - 1, c.n - 1))).toBe(true);
          if (c.n < points.length) expect(ns.has(c.n)).toBe(true);
        }
        if (points.length > max) expect(kept.length).toBeLessThanOrEqual(max + 2 * compactions.length + 4);
        expect(kept.map((p) => p.n)).toEqual([...ns].sort((a, b) => a - b));
      }),
      { numRuns: 200 },
    );
  });
});

describe('the page', () => {
  const attack = '</script><script>alert(1)</script><img src=x onerror=alert(2)>';
  const data = (overview: string): ReportData => ({
    title: `report ${attack}`,
    session: 's1',
    project: '/p',
    window: 200_000,
    windowSource: 'model',
    series: { points: [{ n: 0, tokens: 1000 }, { n: 1, tokens: 150_000 }], compactions: [{ n: 1, before: 150_000, archive: `working-memory/archive/messages-1.jsonl?"><script>` }] },
    events: [{ kind: 'note', time: '2026-11-24T00:00:00Z', text: attack, href: 'working-memory/scratch.md' }],
    overviewHtml: markdownToHtml(overview),
    sizes: [{ name: attack, bytes: 1, files: 1 }],
  });

  it('shows a note holding markup as text, drops raw HTML from the overview, and has no script at all', () => {
    const html = renderReport(data(`# Task\n\n${attack}\n\n[x](javascript:alert(3)) and <b onclick="x()">bold</b>\n`));
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toMatch(/<[a-z][^>]*\son(?:error|click)=/i);
    expect(html).not.toContain('javascript:');
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain("Content-Security-Policy");
  });

  it('gives the same bytes for the same data', () => {
    expect(renderReport(data('# A\n\ntext\n'))).toBe(renderReport(data('# A\n\ntext\n')));
  });

  it('draws the pressure bands, the window and a marker per compaction, with a title', () => {
    const svg = chartSvg({ points: [{ n: 0, tokens: 10 }, { n: 1, tokens: 90 }, { n: 2, tokens: 20 }], compactions: [{ n: 2, before: 90 }] }, 100);
    expect(svg).toMatch(/<title id="chart-title">Context in use over 3 requests; window 100 tokens; 1 compaction<\/title>/);
    for (const cls of ['band-safe', 'band-moderate', 'band-high', 'window', 'tokens']) expect(svg).toContain(`class="${cls}"`);
    expect(svg.match(/class="compaction"/g)).toHaveLength(1);
  });
});
