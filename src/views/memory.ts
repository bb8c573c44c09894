// Pure: the use cases' results of the memory verbs (note, set, append, search, status, remember,
// forget, compact, consolidate) worded for a person or an agent. The CLI prints these with colour
// when it may; the MCP server returns them as tool text with the plain style.
import type { CompactResult } from '../history/compaction/compact.js';
import type { ConsolidateResult } from '../ops/consolidate/consolidate.js';
import type { SearchResult } from '../app/search.js';
import type { StatusResult } from '../app/status.js';
import type { RememberResult } from '../app/remember.js';
import type { ForgetResult } from '../app/forget.js';
import type { SectionResult } from '../app/set.js';
import type { Style } from '../ui/color.js';
import { referenceTime, renderEntry, sortForRender, type WorkspaceEntry } from '../memory/workspace.js';

export function renderSection(mode: 'set' | 'append', result: SectionResult): string {
  const limit = result.maxChars ? `/${result.maxChars}` : '';
  return `${mode === 'set' ? 'set' : 'appended to'} ${result.section} (${result.chars}${limit} chars)`;
}

/** How much of the query a miss repeats: a query can be any length (the MCP tool), an answer should not. */
const ECHO_CHARS = 200;

/** The hits one a line (`file:line  snippet`, resolved pointers and duplicates indented). */
export function renderSearch(data: SearchResult, style: Style): string {
  if (!data.hits.length) {
    const echo = data.queryChars > ECHO_CHARS ? `${JSON.stringify(data.query.slice(0, ECHO_CHARS))}… (${data.queryChars} characters)` : JSON.stringify(data.query);
    return `no match for ${echo} in ${data.filesSearched} files`;
  }
  const lines: string[] = [];
  for (const hit of data.hits) {
    const where = `${data.allSessions && hit.session ? `${hit.session}/` : ''}${hit.file}:${hit.line}`;
    lines.push(`${style.cyan(where)}${hit.date ? style.dim(` ${hit.date}`) : ''}  ${hit.snippet}`);
    for (const c of hit.context ?? []) lines.push(`    ${style.dim(`${c.line < hit.line ? '↑' : '↓'} ${c.line}`)}  ${c.text}`);
    for (const r of hit.resolved ?? []) lines.push(`    ${style.dim(`↳ ${r.file}:${r.line}`)}  ${r.snippet}`);
    if (hit.alsoIn?.length) lines.push(`    ${style.dim(`= also ${hit.alsoIn.map((a) => `${a.file}:${a.line}`).join(', ')}`)}`);
  }
  return lines.join('\n');
}

export function renderStatus({ data, source }: StatusResult, s: Style): string {
  const pressureColor = data.pressure === 'safe' ? s.green : data.pressure === 'moderate' ? s.yellow : s.red;
  const lines = [
    `${s.bold('session')}     ${data.session}${source === 'current' ? '' : ` (from ${source === 'flag' ? '--session' : 'WMEM_SESSION'})`}`,
    `${s.bold('project')}     ${data.cwd}`,
    `${s.bold('folder')}      ${data.path}`,
    `${s.bold('tokens')}      ${data.tokens_used} / ${data.tokens_max} (${data.tokens_percent}%): used from ${data.tokens_source}, window from ${data.tokens_max_source}${data.model ? ` (${data.model})` : ''}`,
    `${s.bold('pressure')}    ${pressureColor(data.pressure)}; hint: ${data.action_hint}`,
    data.transcript
      ? `${s.bold('messages')}    kept by ${data.agent ?? 'the agent'} in ${data.transcript}`
      : `${s.bold('messages')}    ${data.messages_in_history} in history (${data.files.messagesBytes} bytes)`,
    `${s.bold('overview')}    ${data.files.overviewBytes} bytes, ${data.overview_maintained ? 'maintained' : s.yellow('still the bare template')}`,
    `${s.bold('scratch')}     ${data.notes} notes waiting for consolidation${data.unparsedScratchLines ? `, ${data.unparsedScratchLines} lines that are not notes (kept)` : ''}`,
    `${s.bold('detail')}      ${data.files.detailFiles} files; archive: ${data.files.archiveFiles} files`,
    `${s.bold('injected')}    ${data.memoryChars} characters of memory`,
  ];
  if (data.switchedOff) lines.push(`${s.bold('switched')}    ${s.yellow(`off: ${data.switchedOff}`)}`);
  if (data.compactionPending) lines.push(`${s.bold('compaction')}  ${s.yellow('not finished')} (its transcript or overview lines); wmem compact --finish, or the next compact or restore, finishes it`);
  return lines.join('\n');
}

export function renderRemember(result: RememberResult): string {
  const verb = result.status === 'added' ? 'remembered' : result.status === 'merged' ? 'updated (a duplicate, now with higher confidence)' : 'already remembered';
  return [`${verb} ${result.entry.id}: [${result.entry.type}] ${result.entry.text}`, ...result.evicted.map((e) => `evicted ${e.id} to stay within the limits: ${e.text}`)].join('\n');
}

export function renderForget(result: ForgetResult): string {
  if (result.teamOnly) return `removed ${result.removed.id} from ${result.file} (a team entry): commit the file`;
  const also = result.unshared ? `\nremoved it from ${result.teamFile} too: commit the file` : '';
  return `forgot ${result.removed.id}: ${result.removed.text}${also}`;
}

export function renderConsolidate(result: ConsolidateResult): string {
  if (result.dryRun && result.overview !== undefined) return result.overview.replace(/\n$/, '');
  if (result.nothingToDo) return 'nothing to consolidate: scratch.md holds no notes';
  const where = Object.entries(result.placed).map(([id, n]) => `${n} → ${id}`).join(', ');
  const lines = [
    `consolidated ${result.consumed} note${result.consumed === 1 ? '' : 's'}${result.mode === 'llm' ? ' (LLM synthesis accepted)' : ''}${where ? `: ${where}` : ''}`,
    ...(result.folded ? [`${result.folded} already in the overview (folded)`] : []),
    ...result.pointers.map((p) => `pointer: ${p.replace(/^- /, '')}`),
    ...result.details.map((d) => `kept ${d}`),
    ...(result.archive ? [`notes archived to ${result.archive}`] : []),
    ...(result.previousOverview ? [`previous overview kept in ${result.previousOverview}`] : []),
    ...(result.appendedBelowSeed ? ['first consolidation after a MEMORY.md seed: appended below the existing text'] : []),
    ...(result.leftInScratch ? [`${result.leftInScratch} note${result.leftInScratch === 1 ? '' : 's'} added meanwhile stay in scratch.md`] : []),
    ...(result.unparsed.length ? [`${result.unparsed.length} line${result.unparsed.length === 1 ? '' : 's'} of scratch.md are not notes and were kept`] : []),
  ];
  return lines.join('\n');
}

export function renderCompact(result: CompactResult): string {
  const c = result.counts;
  const lines: string[] = [];
  if (result.recovered) lines.push(`(${result.recovered})`);
  if (!result.archive) {
    lines.push(result.reason ?? 'nothing to compact');
    return lines.join('\n');
  }
  const verb = result.dryRun ? 'would move' : 'moved';
  if (result.finishing) {
    const what = c.turnsArchived === null ? `everything (${megabytes(c.bytesArchived)})` : `${c.turnsArchived} turns (${c.messagesArchived} messages, ${c.linesArchived} lines, ${megabytes(c.bytesArchived)})`;
    const kept = result.cutInsideTurn ? `the last ${c.stepsKept} steps` : `the last ${c.turnsKept} turns`;
    lines.push(`moved ${what} before ${kept} to ${result.archive}; kept those ${result.cutInsideTurn ? 'steps' : 'turns'}.`);
    if (result.cutInsideTurn) lines.push('The cut fell inside a turn: its opening message is repeated after the marker (restore drops the copy).');
    for (const d of result.details) lines.push(`  ${d}`);
    if (result.finishing === 'background') lines.push('The readable transcript and the overview lines are being written in the background (--wait does it before returning).');
    else if (result.recentLine) lines.push(result.recentLine);
    lines.push(`Undo: wmem restore ${result.archive}`);
    return lines.join('\n');
  }
  if (result.target !== 'tools') {
    const keep = result.dryRun ? 'would keep' : 'kept';
    const tail = result.cutInsideTurn
      ? `${keep} the last ${c.stepsKept} steps; the cut falls inside a turn, whose opening message ${result.dryRun ? 'would be' : 'is'} repeated after the marker`
      : `${keep} the last ${c.turnsKept}`;
    lines.push(`${result.dryRun ? 'Dry run: ' : ''}${verb} ${c.turnsArchived} of ${c.turnsBefore} turns${result.cutInsideTurn ? ' (the last in part)' : ''} (${c.messagesArchived} messages${result.target === 'conversation' ? `, ${c.linesArchived} lines` : ''}) to ${result.archive}; ${tail}.`);
  } else {
    lines.push(`${result.dryRun ? 'Dry run: ' : ''}${result.dryRun ? 'would cut' : 'cut'} ${c.toolOutputsPruned} old tool outputs; original lines ${result.dryRun ? 'would go' : 'went'} to ${result.archive}.`);
  }
  if (result.target === 'all' && c.toolOutputsPruned) lines.push(`${result.dryRun ? 'would cut' : 'cut'} ${c.toolOutputsPruned} tool outputs in the kept turns (the newest turn untouched).`);
  for (const d of result.details) lines.push(`  ${d}`);
  if (result.recentLine) lines.push(result.recentLine);
  if (!result.dryRun && result.archive) lines.push(`Undo: wmem restore ${result.archive}`);
  return lines.join('\n');
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}


/** `wmem memories`: each entry as injected, then where it came from (a session's decision names the session). */
export function renderMemoryList(entries: WorkspaceEntry[], style: Style): string {
  const file = { version: 1 as const, entries };
  const reference = referenceTime(file);
  return sortForRender(entries)
    .map((e) => `${renderEntry(e, reference)}  ${style.dim(`· ${originOf(e)}`)}`)
    .join('\n');
}

export function originOf(entry: WorkspaceEntry): string {
  const confidence = `confidence ${entry.confidence}`;
  if (entry.source === 'session') return `from session ${entry.session ?? '(unknown)'}, ${confidence}`;
  if (entry.source === 'team') return 'from the team file';
  if (entry.source === 'compaction') return `from a compaction summary, ${confidence}`;
  return `${entry.source}, ${confidence}`;
}
