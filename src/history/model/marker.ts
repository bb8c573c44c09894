// Pure: the line that leads messages.jsonl after a compaction. It tells the agent what went where
// (it is a system message the model reads), and tells `wmem restore` exactly which bytes to put
// back: the archive's size and hash, and the size and hash of the lines that replaced it (a
// repeated opening message among them, which restore drops like any replacement).

export interface CompactionMarker {
  version: 1;
  id: string;
  /** The archive, relative to working-memory/. */
  archive: string;
  archivedBytes: number;
  /** Absent when a quick cut left the counting to its finishing (state/archives.json has it then). */
  archivedLines?: number;
  archiveSha256: string;
  /**
   * Bytes right after this line that stand in for archived lines: rewritten tool outputs, or the
   * repeated opening message of a turn the cut fell inside; 0 for a plain cut between turns.
   */
  replacedBytes: number;
  replacedSha256: string;
  /** A cut inside a turn: the first `openingBytes` of the replaced bytes are a copy of that turn's opening message. */
  openingBytes?: number;
  /** Absent when a quick compaction left the counting to its finishing (quick-cut.ts). */
  turns?: number;
  messages?: number;
  details: string[];
}

export type HistoryFormat = 'claude' | 'chat';

export const MARKER_KEY = 'wmem_compaction';

/** The marker as one JSON line (with newline), shaped like the history's own system lines. */
export function markerLine(format: HistoryFormat, marker: CompactionMarker, content: string): string {
  const line =
    format === 'claude'
      ? { type: 'system', subtype: MARKER_KEY, content, isMeta: false, level: 'info', [MARKER_KEY]: marker }
      : { role: 'system', content, [MARKER_KEY]: marker };
  return JSON.stringify(line) + '\n';
}

/** What the marker tells the agent when the cut fell inside a turn (its opening message follows the marker). */
export function openingNote(stepsKept: number): string {
  return ` The cut fell inside the current turn: its last ${stepsKept} step${stepsKept === 1 ? ' is' : 's are'} kept, and the user message that opened it is repeated on the next line (a copy; the original is in the archive).`;
}

/** The marker a line carries, or undefined. */
export function parseMarker(line: string): CompactionMarker | undefined {
  if (!line.includes(MARKER_KEY)) return undefined;
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    const marker = value?.[MARKER_KEY] as CompactionMarker | undefined;
    if (marker && typeof marker === 'object' && typeof marker.archive === 'string' && typeof marker.archivedBytes === 'number') return marker;
  } catch {
    /* not a marker */
  }
  return undefined;
}
