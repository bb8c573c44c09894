// Pure: the context in use over a session, read from transcript lines with the rules of the agent
// that wrote them (each adapter's usageLines; wmem's own history with HISTORY_USAGE), and its
// downsampling for a chart that stays small.
import type { UsageLines } from '../history/model/usage.js';
import { isObject } from '../ui/json.js';
import { HISTORY_USAGE } from '../agents/history-usage.js';

export interface SeriesPoint {
  /** The request's ordinal in the session (0-based): the chart's x axis. */
  n: number;
  tokens: number;
  time?: string;
  model?: string;
}

export interface Compaction {
  /** The ordinal of the first request after it. */
  n: number;
  time?: string;
  /** Tokens in use before it (the agent's own figure, else the last request's). */
  before?: number;
  /** Tokens right after it, where the agent says. */
  after?: number;
  /** What it archived, relative to the session folder, when wmem knows. */
  archive?: string;
  detail?: string;
  trigger?: string;
}

export interface Series {
  points: SeriesPoint[];
  compactions: Compaction[];
  /** The window the agent itself reported (Codex), if any. */
  window?: number;
  model?: string;
}

function timeOf(value: Record<string, unknown>): string | undefined {
  const t = value.timestamp ?? (isObject(value.message) ? value.message.timestamp : undefined);
  if (typeof t === 'string' && !Number.isNaN(Date.parse(t))) return new Date(t).toISOString();
  if (typeof t === 'number' && Number.isFinite(t)) return new Date(t).toISOString();
  return undefined;
}

/**
 * Adds one parsed transcript line to `series` under `rules` (duplicates of one message's usage,
 * and a compaction the agent names again, count once).
 */
export function addLine(series: Series, value: unknown, seen: Set<string>, rules: UsageLines = HISTORY_USAGE): void {
  const event = rules.event(value);
  if (!event || !isObject(value)) return;
  const time = event.time ?? timeOf(value);
  if (event.kind === 'boundary') {
    if (event.id) {
      if (seen.has(`compaction ${event.id}`)) return;
      seen.add(`compaction ${event.id}`);
    }
    const meta = isObject(value.compactMetadata) ? value.compactMetadata : {};
    const last = series.points[series.points.length - 1];
    const before = typeof meta.preTokens === 'number' ? meta.preTokens : last?.tokens;
    series.compactions.push({ n: series.points.length, time, ...(before ? { before } : {}), ...(event.after ? { after: event.after } : {}), ...(typeof meta.trigger === 'string' ? { trigger: meta.trigger } : {}) });
    return;
  }
  if (event.messageId) {
    // Claude Code writes one line per content block of a message, each with the same usage.
    if (seen.has(event.messageId)) return;
    seen.add(event.messageId);
  }
  series.points.push({ n: series.points.length, tokens: event.tokens, ...(time ? { time } : {}), ...(event.model ? { model: event.model } : {}) });
  if (event.window) series.window = event.window;
  if (event.model) series.model = event.model;
}

export function emptySeries(): Series {
  return { points: [], compactions: [] };
}

/** The series of whole transcript text (tests, small files); the loader streams big ones through addLine. */
export function seriesOf(text: string, rules: UsageLines = HISTORY_USAGE): Series {
  const series = emptySeries();
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      addLine(series, JSON.parse(line), seen, rules);
    } catch {
      /* a line that is not JSON carries no usage */
    }
  }
  return series;
}

export function peakOf(points: SeriesPoint[]): SeriesPoint | undefined {
  let peak: SeriesPoint | undefined;
  for (const p of points) if (!peak || p.tokens > peak.tokens) peak = p;
  return peak;
}

/**
 * At most about `max` points for the chart: each bucket keeps its first point and its highest,
 * and the points on either side of every compaction and the overall peak and last point are
 * always kept, so the drawn line never hides a peak or a compaction's drop.
 */
export function downsample(points: SeriesPoint[], compactions: Compaction[], max = 1500): SeriesPoint[] {
  if (points.length <= max) return points;
  const keep = new Set<number>();
  const bucket = Math.ceil(points.length / Math.max(1, Math.floor(max / 2)));
  for (let start = 0; start < points.length; start += bucket) {
    let high = start;
    for (let i = start; i < Math.min(points.length, start + bucket); i++) if (points[i].tokens > points[high].tokens) high = i;
    keep.add(start).add(high);
  }
  for (const c of compactions) {
    if (c.n > 0) keep.add(Math.min(points.length - 1, c.n - 1));
    if (c.n < points.length) keep.add(c.n);
  }
  const peak = peakOf(points);
  if (peak) keep.add(peak.n);
  keep.add(points.length - 1);
  return [...keep].sort((a, b) => a - b).map((i) => points[i]);
}
