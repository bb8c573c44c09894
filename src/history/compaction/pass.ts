// Pass 2 of a compaction: one streaming read of the region that leaves messages.jsonl, which
// renders the readable transcript, feeds the summary, prunes tool outputs into the replacement
// lines, hashes every byte and checks that no line is linked to one after the cut. Shared by the
// full compaction (compact.ts) and the finishing of a quick one (quick-cut.ts).
import type { Hash } from 'node:crypto';
import path from 'node:path';
import type { Session } from '../../store/session.js';
import { detailFrontMatter } from '../../store/detail.js';
import type { MessageLine } from '../model/lines.js';
import { lineFacts } from '../model/messages.js';
import { renderMessage, messageTime, fenceFor } from '../model/transcript.js';
import type { SummaryCollector } from '../model/summary.js';
import { pruneOutput, rewriteToolOutputs, pointerLine, type PruneMode } from '../model/prune.js';
import { detectFormat } from './plan.js';
import type { HistoryFormat } from '../model/marker.js';
import { readLineBatches } from '../stream/read.js';
import type { DurableFile } from '../stream/durable.js';
import { nodeHash } from '../../memory/hash.js';

const COMPACT_PRUNE_MODE: PruneMode = 'aggressive';

export class Progress {
  private last = 0;
  private shown = false;
  constructor(
    private enabled: boolean,
    private total: number,
  ) {}
  tick(done: number, label: string) {
    if (!this.enabled || this.total < 4 << 20) return;
    const now = Date.now();
    if (now - this.last < 200) return;
    this.last = now;
    this.shown = true;
    process.stderr.write(`\rwmem compact: ${label} ${Math.min(100, Math.round((done / this.total) * 100))}%   `);
  }
  /** A phase without a percentage (shown only if progress was shown already). */
  stage(label: string) {
    if (this.shown) process.stderr.write(`\r\x1b[Kwmem compact: ${label}…`);
  }
  end() {
    if (this.shown) process.stderr.write('\r\x1b[K');
  }
}

export function rel(session: Session, file: string): string {
  return path.relative(session.paths.workingMemory, file).split(path.sep).join('/');
}

/** Where pass 2 writes; any may be absent (a dry run has none). */
export interface Sinks {
  transcript?: DurableFile;
  collector?: SummaryCollector;
  tools?: DurableFile;
  toolsRel: string;
  replaced?: DurableFile;
}

export interface ScanState {
  lineNo: number;
  ordinal: number;
  messages: number;
  turns: number;
  pruned: number;
  anchors: Map<string, string>;
  /** sha256 of every byte scanned so far, from 0: the archive's digest without reading it again. */
  hash: Hash;
  firstTime?: string;
  lastTime?: string;
  format?: HistoryFormat;
}

/**
 * Pass 2 over [start, end): hashes every line, renders messages to the transcript, feeds the
 * summary, and (rewrite) prunes tool outputs into the replacement. Stops early and returns false
 * when a line carries one of `straddleIds` (the cut would separate linked lines).
 */
export async function scanRegion(
  file: string,
  range: { start: number; end: number },
  what: { transcript: boolean; rewrite: boolean; straddleIds?: Set<string> },
  sinks: Sinks,
  state: ScanState,
  progress: Progress,
): Promise<boolean> {
  for await (const batch of readLineBatches(file, { ...range, hash: state.hash })) {
    for (const line of batch) {
      state.lineNo++;
      // Decoded without its terminator, so parsing needs no trimmed copy of every line.
      const bytes = line.bytes;
      const eolLength = bytes[bytes.length - 1] !== 10 ? 0 : bytes[bytes.length - 2] === 13 ? 2 : 1;
      const text = bytes.toString('utf8', 0, bytes.length - eolLength);
      const facts = lineFacts(text);
      if (what.straddleIds?.size) for (const link of facts.links) if (what.straddleIds.has(link.id)) return false;
      if (facts.info.kind === 'message') {
        const info = facts.info as MessageLine;
        state.messages++;
        state.format = detectFormat(info.value, state.format);
        if (facts.turnStart) state.turns++;
        if (what.transcript) {
          if (sinks.transcript?.push(renderMessage(info, ++state.ordinal, state.lineNo, facts.parts))) await sinks.transcript.flushDue();
          const t = messageTime(info);
          if (t) {
            state.firstTime ??= t;
            state.lastTime = t;
          }
          sinks.collector?.add(line.offset, info, facts.turnStart, facts.parts);
        }
      }
      if (what.rewrite) await rewriteLine(bytes, eolLength, facts.info.kind === 'message' ? (facts.info as MessageLine).value : undefined, sinks, state);
    }
    progress.tick(batch[batch.length - 1]!.offset, 'compacting');
  }
  return true;
}

/** Prunes the tool outputs of one line into the replacement, saving each full text once. */
async function rewriteLine(bytes: Buffer, eolLength: number, parsed: Record<string, unknown> | undefined, sinks: Sinks, state: ScanState): Promise<void> {
  const value = parsed ? structuredClone(parsed) : undefined;
  const saves: Array<{ anchor: string; text: string; id?: string }> = [];
  const changed =
    value !== undefined &&
    rewriteToolOutputs(value, (output, toolId) => {
      const result = pruneOutput(output, COMPACT_PRUNE_MODE);
      if (!result.pruned) return undefined;
      // Keyed by a digest, not the text: memory stays flat however many outputs are cut.
      const key = nodeHash('sha1').update(output).digest('base64');
      let anchor = state.anchors.get(key);
      if (!anchor) {
        anchor = `output-${state.anchors.size + 1}`;
        state.anchors.set(key, anchor);
        saves.push({ anchor, text: output, id: toolId });
      }
      state.pruned++;
      return `${result.text}\n${pointerLine(result, `working-memory/${sinks.toolsRel}#${anchor}`)}`;
    });
  if (!changed) {
    await sinks.replaced?.write(bytes);
    return;
  }
  for (const save of saves) {
    const fence = fenceFor(save.text);
    await sinks.tools?.write(`## ${save.anchor}\n\nLine ${state.lineNo}${save.id ? `, tool call ${save.id}` : ''}.\n\n${fence}\n${save.text}\n${fence}\n\n`);
  }
  const eol = eolLength === 2 ? '\r\n' : eolLength === 1 ? '\n' : '';
  await sinks.replaced?.write(Buffer.from(JSON.stringify(value) + eol, 'utf8'));
}

/** Front matter whose counts are filled in once known (padded fields, patched in place). */
export function countedFrontMatter(fields: Record<string, unknown>, counted: string[]): { text: string; slots: Record<string, number> } {
  const head = detailFrontMatter(fields).replace(/---\n$/, '');
  const slots: Record<string, number> = {};
  let text = head;
  for (const key of counted) {
    slots[key] = Buffer.byteLength(text, 'utf8') + key.length + 2;
    text += `${key}: ${' '.repeat(16)}\n`;
  }
  return { text: text + '---\n', slots };
}

export async function fillSlots(file: DurableFile, slots: Record<string, number>, values: Record<string, string | number>): Promise<void> {
  for (const [key, position] of Object.entries(slots)) await file.patch(position, String(values[key]).slice(0, 16));
}

export function firstLineOf(text: string): string {
  return (text.split('\n').find((l) => l.trim()) ?? '').replace(/^#+\s*/, '').trim().slice(0, 300);
}

/** Writes the conversation transcript's front matter and heading; returns the count slots to fill. */
export async function startTranscript(file: DurableFile, info: { session: string; created: Date; archiveRel: string }): Promise<Record<string, number>> {
  const iso = info.created.toISOString();
  const front = countedFrontMatter(
    { wmem: 'detail', version: 1, kind: 'conversation', title: `conversation compacted ${iso}`, created: iso, session: info.session, source: 'messages.jsonl', archive: info.archiveRel },
    ['lines', 'messages', 'turns'],
  );
  await file.write(`${front.text}\n# Conversation compacted ${iso}\n\nEvery line is kept byte for byte in ${info.archiveRel}; long parts are shortened here.\n\n`);
  return front.slots;
}

/** What stands under a quick cut's transcript name until its finishing writes the transcript. */
export function transcriptPlaceholder(info: { session: string; created: Date; archiveRel: string }): string {
  const iso = info.created.toISOString();
  return (
    detailFrontMatter({ wmem: 'detail', version: 1, kind: 'conversation', title: `conversation compacted ${iso} (being written)`, created: iso, session: info.session, source: 'messages.jsonl', archive: info.archiveRel }) +
    `\n# Conversation compacted ${iso}\n\nThis readable transcript is being written in the background from ${info.archiveRel}, which holds every line byte for byte.\n`
  );
}

/** The index title of a conversation transcript. */
export function transcriptTitle(counts: { turns: number; messages: number; lines: number }, created: Date): string {
  return `conversation turns 1-${counts.turns} (${counts.messages} messages, lines 1-${counts.lines}), compacted ${created.toISOString()}`;
}

/** The Recent Actions line of a compaction that archived turns without a summary. */
export function archivedRecentLine(counts: { turns: number; messages: number }, archiveRel: string, transcriptRel?: string): string {
  return `Compacted ${counts.turns} turns (${counts.messages} messages) → ${archiveRel}${transcriptRel ? `; transcript ${transcriptRel}` : ''}`;
}
