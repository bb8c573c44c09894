// Pure: cutting a tool output down by pressure (docs/compaction.md: normal — more than 50 lines keeps 30;
// aggressive — more than 30 keeps 20; hyper — more than 15 keeps 10), half from the head and
// half from the tail. It recognises file listings, directory trees, logs and repeated lines,
// always keeps error lines, and leaves short outputs alone. Saving the full text is the caller's.
import { isObject } from './lines.js';

export type PruneMode = 'normal' | 'aggressive' | 'hyper';
export type OutputKind = 'listing' | 'tree' | 'log' | 'repeated' | 'text';

export interface PruneRule {
  /** Outputs with more lines than this are cut… */
  maxLines: number;
  /** …to this many (plus error lines and markers). */
  keepLines: number;
  /** Outputs longer than this (in characters) are cut too, whatever their line count… */
  maxChars: number;
  /** …to about this many. */
  keepChars: number;
}

export const PRUNE_RULES: Record<PruneMode, PruneRule> = {
  normal: { maxLines: 50, keepLines: 30, maxChars: 20_000, keepChars: 8_000 },
  aggressive: { maxLines: 30, keepLines: 20, maxChars: 8_000, keepChars: 4_000 },
  hyper: { maxLines: 15, keepLines: 10, maxChars: 4_000, keepChars: 2_000 },
};

export interface PruneResult {
  pruned: boolean;
  text: string;
  kind: OutputKind;
  totalLines: number;
  keptLines: number;
  errorLines: number;
}

// ✗ and ✘ spelled \u2717 and \u2718, the tree's │ ├ └ ─ \u2502 \u251c \u2514 \u2500: an ASCII bundle is a
// one-byte string (memory/hot-state.ts says why; fast-compact.cjs is one since compact9).
const ERROR_LINE = /\b(errors?|exception|traceback|fatal|panic|failed|failure|segmentation fault|denied)\b|ERR!|\u2717|\u2718|\bFAIL\b|^E\s{2,}/i;
const TREE_LINE = /^[\s\u2502|]*(\u251c\u2500\u2500|\u2514\u2500\u2500|\|--|`--|\+--|\\--)/;
const LS_LONG = /^[-dlcbps][rwxsStT-]{9}[@+.]?\s/;
const PATH_LINE = /^(?:\.{0,2}\/|~\/|[\w@.-]+\/)?[\w@.+\-/\\]+(?:\.\w{1,8}|\/)(?::\d+(?::\d+)?)?$/;
const LOG_LINE = /^\s*\[?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\d{2}:\d{2}:\d{2}|(TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL)\b)|^\s*(npm|yarn|pnpm) (WARN|ERR|notice|info)/i;

export function isErrorLine(line: string): boolean {
  return ERROR_LINE.test(line);
}

/** What kind of output the lines look like (by majority of non-empty lines). */
export function detectKind(lines: string[]): OutputKind {
  const nonEmpty = lines.filter((l) => l.trim() !== '');
  if (!nonEmpty.length) return 'text';
  const share = (re: RegExp) => nonEmpty.filter((l) => re.test(l.trimEnd())).length / nonEmpty.length;
  if (share(TREE_LINE) >= 0.3) return 'tree';
  if (share(LS_LONG) >= 0.6 || share(PATH_LINE) >= 0.7) return 'listing';
  if (share(LOG_LINE) >= 0.5) return 'log';
  const distinct = new Set(nonEmpty).size;
  if (distinct / nonEmpty.length <= 0.5) return 'repeated';
  return 'text';
}

/** Runs of identical lines (digits ignored for logs) become one line with a count. */
export function collapseRepeats(lines: string[], loose: boolean): string[] {
  const out: string[] = [];
  const key = (l: string) => (loose ? l.replace(/\d+/g, '#') : l);
  for (let i = 0; i < lines.length; ) {
    let j = i + 1;
    while (j < lines.length && key(lines[j]!) === key(lines[i]!)) j++;
    const run = j - i;
    const similar = loose && lines.slice(i, j).some((l) => l !== lines[i]);
    out.push(run > 2 ? `${lines[i]}  [×${run}${similar ? ', similar lines' : ''}]` : lines[i]!);
    if (run === 2) out.push(lines[i + 1]!);
    i = j;
  }
  return out;
}

function extensionSummary(lines: string[]): string {
  const counts = new Map<string, number>();
  for (const l of lines) {
    const m = /\.(\w{1,8})\s*$/.exec(l.trim());
    const ext = m ? `.${m[1]}` : l.trim().endsWith('/') ? 'folders' : 'other';
    counts.set(ext, (counts.get(ext) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([ext, n]) => `${n} ${ext}`)
    .join(', ');
}

function omitted(lines: string[], kind: OutputKind): string {
  const n = lines.length;
  const noun = kind === 'listing' || kind === 'tree' ? 'entries' : 'lines';
  const detail = kind === 'listing' || kind === 'tree' ? `: ${extensionSummary(lines)}` : '';
  return `… [${n} ${noun} omitted${detail}]`;
}

function capChars(text: string, rule: PruneRule): string {
  if (text.length <= rule.maxChars) return text;
  const half = Math.floor(rule.keepChars / 2);
  return `${text.slice(0, half)}\n… [${text.length - 2 * half} characters omitted]\n${text.slice(-half)}`;
}

/** Cuts `text` by `mode`; `pruned` is false (and `text` unchanged) for short outputs. */
export function pruneOutput(text: string, mode: PruneMode): PruneResult {
  const rule = PRUNE_RULES[mode];
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  const totalLines = lines.length;
  const errorCount = lines.filter(isErrorLine).length;
  const kind = detectKind(lines);
  const unchanged = { pruned: false, text, kind, totalLines, keptLines: totalLines, errorLines: errorCount };
  if (totalLines <= rule.maxLines && text.length <= rule.maxChars) return unchanged;

  let work = kind === 'listing' || kind === 'tree' ? lines : collapseRepeats(lines, kind === 'log');
  let out: string[];
  if (work.length <= rule.maxLines) {
    out = work;
  } else {
    const head = Math.ceil(rule.keepLines / 2);
    const tail = rule.keepLines - head;
    out = work.slice(0, head);
    let gap: string[] = [];
    for (let i = head; i < work.length - tail; i++) {
      const line = work[i]!;
      if (isErrorLine(line)) {
        if (gap.length) out.push(omitted(gap, kind));
        gap = [];
        out.push(line);
      } else {
        gap.push(line);
      }
    }
    if (gap.length) out.push(omitted(gap, kind));
    out.push(...work.slice(work.length - tail));
  }
  work = out;
  const result = capChars(work.join('\n'), rule);
  if (result === text || result.length >= text.length) return unchanged;
  return { pruned: true, text: result, kind, totalLines, keptLines: work.length, errorLines: errorCount };
}

/** The pointer line that follows a pruned output. */
export function pointerLine(result: PruneResult, where: string): string {
  return `[wmem: ${result.kind} output cut from ${result.totalLines} lines${result.errorLines ? ` (${result.errorLines} error lines kept)` : ''}; full text: ${where}]`;
}

/**
 * Rewrites the tool outputs inside one history line (Claude Code / Anthropic tool_result blocks
 * and `toolUseResult`, OpenAI role tool, Codex function_call_output). `replace` returns the new
 * text for an output, or undefined to leave it. Returns true when something changed.
 */
export function rewriteToolOutputs(value: Record<string, unknown>, replace: (text: string, id?: string) => string | undefined): boolean {
  let changed = false;
  const swap = (text: unknown, id?: string): unknown => {
    if (typeof text !== 'string') return text;
    const next = replace(text, id);
    if (next === undefined || next === text) return text;
    changed = true;
    return next;
  };
  const content = (holder: Record<string, unknown>, key: string, id?: string) => {
    const c = holder[key];
    if (typeof c === 'string') holder[key] = swap(c, id);
    else if (Array.isArray(c)) for (const b of c) if (isObject(b) && b.type === 'text') b.text = swap(b.text, id);
  };
  const root = isObject(value.message) ? value.message : value;
  if (Array.isArray(root.content)) {
    for (const block of root.content) {
      if (isObject(block) && block.type === 'tool_result') content(block, 'content', typeof block.tool_use_id === 'string' ? block.tool_use_id : undefined);
    }
  }
  if (root.role === 'tool') content(root, 'content', typeof root.tool_call_id === 'string' ? root.tool_call_id : undefined);
  if (isObject(value.payload) && (value.payload.type === 'function_call_output' || value.payload.type === 'custom_tool_call_output')) {
    value.payload.output = swap(value.payload.output, typeof value.payload.call_id === 'string' ? value.payload.call_id : undefined);
  }
  const tur = value.toolUseResult;
  if (typeof tur === 'string') value.toolUseResult = swap(tur);
  else if (isObject(tur)) {
    for (const key of ['stdout', 'stderr', 'content', 'output', 'result']) if (typeof tur[key] === 'string') tur[key] = swap(tur[key]);
    if (isObject(tur.file) && typeof tur.file.content === 'string') tur.file.content = swap(tur.file.content);
  }
  return changed;
}
