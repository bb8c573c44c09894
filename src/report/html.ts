// Pure: the report page. One HTML file with everything inline and no script at all (a Content
// Security Policy forbids scripts and any fetch), so it opens from disk in any browser and no text
// from memory can run. Every text is escaped; the overview arrives already rendered as HTML by
// remark (raw HTML in it dropped). The same data always gives the same bytes: no clock here.
import type { Compaction, Series, SeriesPoint } from './series.js';
import { downsample, peakOf } from './series.js';

export interface ReportEvent {
  time?: string;
  kind: 'note' | 'decision' | 'error' | 'compaction';
  text: string;
  /** Where it is kept, relative to the report's folder. */
  href?: string;
}

export interface SessionRow {
  id: string;
  peak?: number;
  window: number;
  compactions: number;
  last?: string;
  href?: string;
}

export interface ReportData {
  title: string;
  session: string;
  project: string;
  window: number;
  windowSource: string;
  series: Series;
  events: ReportEvent[];
  overviewHtml: string;
  sizes: { name: string; bytes: number; files: number }[];
  sessions?: SessionRow[];
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const fmt = (n: number) => n.toLocaleString('en-US');
const percent = (n: number, of: number) => (of > 0 ? `${Math.round((n / of) * 100)} %` : '—');
const W = 960;
const H = 320;
const PAD = { left: 64, right: 16, top: 16, bottom: 36 };

/** The chart: pressure bands, the window, the tokens line, a marker per compaction (linked to what it archived). */
export function chartSvg(series: Series, window: number): string {
  const points = downsample(series.points, series.compactions);
  const count = Math.max(1, series.points.length - 1);
  const top = Math.max(window, peakOf(series.points)?.tokens ?? 0) * 1.05 || 1;
  const x = (n: number) => PAD.left + (n / count) * (W - PAD.left - PAD.right);
  const y = (t: number) => H - PAD.bottom - (t / top) * (H - PAD.top - PAD.bottom);
  const r = (v: number) => Math.round(v * 10) / 10;
  const band = (from: number, to: number, cls: string) => `<rect class="${cls}" x="${PAD.left}" y="${r(y(to))}" width="${W - PAD.left - PAD.right}" height="${r(y(from) - y(to))}"/>`;
  const line = points.map((p) => `${r(x(p.n))},${r(y(p.tokens))}`).join(' ');
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const t = Math.round(top * f);
    return `<text class="axis" x="${PAD.left - 6}" y="${r(y(t)) + 4}" text-anchor="end">${shortTokens(t)}</text>`;
  });
  const markers = series.compactions.map((c, i) => compactionMarker(c, i, r(x(Math.min(c.n, count))), H - PAD.bottom, PAD.top));
  const title = `Context in use over ${fmt(series.points.length)} requests; window ${fmt(window)} tokens; ${series.compactions.length} compaction${series.compactions.length === 1 ? '' : 's'}`;
  return [
    `<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="chart-title">`,
    `<title id="chart-title">${escapeHtml(title)}</title>`,
    band(0, window * 0.75, 'band-safe'),
    band(window * 0.75, window * 0.9, 'band-moderate'),
    band(window * 0.9, window, 'band-high'),
    `<line class="window" x1="${PAD.left}" x2="${W - PAD.right}" y1="${r(y(window))}" y2="${r(y(window))}"/>`,
    `<text class="axis" x="${W - PAD.right}" y="${r(y(window)) - 4}" text-anchor="end">window ${shortTokens(window)}</text>`,
    ...ticks,
    `<text class="axis" x="${(W + PAD.left) / 2}" y="${H - 8}" text-anchor="middle">requests (${fmt(series.points.length)})</text>`,
    points.length ? `<polyline class="tokens" points="${line}"/>` : `<text class="axis" x="${W / 2}" y="${H / 2}" text-anchor="middle">no token use recorded in the transcript</text>`,
    ...markers,
    '</svg>',
  ].join('\n');
}

function compactionMarker(c: Compaction, i: number, cx: number, bottom: number, topY: number): string {
  const label = `Compaction ${i + 1}${c.time ? ` at ${c.time}` : ''}${c.before ? `: ${fmt(c.before)} tokens before` : ''}${c.after ? `, ${fmt(c.after)} after` : ''}${c.archive ? `; archived to ${c.archive}` : ''}`;
  const mark = `<g class="compaction" data-compaction="${i + 1}"><title>${escapeHtml(label)}</title><line x1="${cx}" x2="${cx}" y1="${topY}" y2="${bottom}"/><circle cx="${cx}" cy="${topY + 6}" r="5"/></g>`;
  return c.archive ? `<a href="${escapeHtml(c.archive)}">${mark}</a>` : mark;
}

function shortTokens(n: number): string {
  return n >= 1_000_000 ? `${Math.round(n / 100_000) / 10}M` : n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
}

/** The chart's text fallback: every compaction and peak, and the series sampled. */
function seriesTable(series: Series, window: number): string {
  const rows = downsample(series.points, series.compactions, 60)
    .map((p: SeriesPoint) => `<tr><td>${p.n + 1}</td><td>${escapeHtml(p.time ?? '')}</td><td>${fmt(p.tokens)}</td><td>${percent(p.tokens, window)}</td></tr>`)
    .join('\n');
  return `<details><summary>The chart as a table</summary><table><thead><tr><th>request</th><th>time</th><th>tokens</th><th>of window</th></tr></thead><tbody>\n${rows}\n</tbody></table></details>`;
}

function eventsList(events: ReportEvent[]): string {
  if (!events.length) return '<p class="muted">No notes, decisions, errors or compactions recorded.</p>';
  const items = events.map((e) => {
    const text = escapeHtml(e.text);
    const body = e.href ? `<a href="${escapeHtml(e.href)}">${text}</a>` : text;
    return `<li class="event ${e.kind}"><span class="kind">${e.kind}</span> <time>${escapeHtml(e.time ?? '')}</time> <span class="text">${body}</span></li>`;
  });
  return `<ol class="events">\n${items.join('\n')}\n</ol>`;
}

function sizesTable(sizes: ReportData['sizes']): string {
  const rows = sizes.map((s) => `<tr><td>${escapeHtml(s.name)}</td><td>${fmt(s.files)}</td><td>${fmt(s.bytes)}</td></tr>`).join('\n');
  return `<table><thead><tr><th>folder</th><th>files</th><th>bytes</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

function sessionsTable(rows: SessionRow[]): string {
  const body = rows
    .map((s) => `<tr><td>${s.href ? `<a href="${escapeHtml(s.href)}">${escapeHtml(s.id)}</a>` : escapeHtml(s.id)}</td><td>${s.peak ? `${fmt(s.peak)} (${percent(s.peak, s.window)})` : '—'}</td><td>${s.compactions}</td><td>${escapeHtml(s.last ?? '—')}</td></tr>`)
    .join('\n');
  return `<table class="sessions"><thead><tr><th>session</th><th>peak</th><th>compactions</th><th>last activity</th></tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1d1f23;--bg:#fff;--muted:#5d636e;--line:#2563eb;--safe:#dcfce7;--moderate:#fef3c7;--high:#fee2e2;--mark:#b91c1c;--rule:#d7dae0}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--bg:#16181c;--muted:#a0a6b0;--line:#60a5fa;--safe:#12351f;--moderate:#3b3110;--high:#3f1717;--mark:#f87171;--rule:#343841}}
*{box-sizing:border-box}body{margin:0 auto;max-width:1040px;padding:16px;font:15px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.15em;margin:1.6em 0 .5em;border-bottom:1px solid var(--rule)}
.muted,.axis{color:var(--muted);fill:var(--muted);font-size:12px}a{color:var(--line)}
.chart{width:100%;height:auto;display:block}.band-safe{fill:var(--safe)}.band-moderate{fill:var(--moderate)}.band-high{fill:var(--high)}
.window{stroke:var(--muted);stroke-dasharray:4 3}.tokens{fill:none;stroke:var(--line);stroke-width:2}
.compaction line{stroke:var(--mark);stroke-width:1.5}.compaction circle{fill:var(--mark)}
table{border-collapse:collapse;width:100%;font-size:.92em}td,th{border-bottom:1px solid var(--rule);padding:3px 6px;text-align:left;overflow-wrap:anywhere}
.events{list-style:none;padding:0}.event{padding:3px 0;border-bottom:1px solid var(--rule);overflow-wrap:anywhere}
.kind{display:inline-block;min-width:6.5em;font-weight:600}.event.error .kind{color:var(--mark)}time{color:var(--muted);font-size:.9em}
.overview{overflow-wrap:anywhere}.overview pre{overflow-x:auto}dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px}
`;

export function renderReport(data: ReportData): string {
  const peak = peakOf(data.series.points);
  const facts: [string, string][] = [
    ['session', data.session],
    ['project', data.project],
    ['window', `${fmt(data.window)} tokens (${data.windowSource})`],
    ['requests', fmt(data.series.points.length)],
    ['peak', peak ? `${fmt(peak.tokens)} tokens, ${percent(peak.tokens, data.window)} of the window` : '—'],
    ['compactions', String(data.series.compactions.length)],
  ];
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(data.title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>${escapeHtml(data.title)}</h1>`,
    `<dl class="facts">${facts.map(([k, v]) => `<dt>${k}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`,
    '<h2>Context in use</h2>',
    chartSvg(data.series, data.window),
    seriesTable(data.series, data.window),
    ...(data.sessions ? ['<h2>Sessions of this project</h2>', sessionsTable(data.sessions)] : []),
    '<h2>Notes, decisions, errors and compactions</h2>',
    eventsList(data.events),
    '<h2>The overview now</h2>',
    `<div class="overview">${data.overviewHtml}</div>`,
    '<h2>Sizes</h2>',
    sizesTable(data.sizes),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
