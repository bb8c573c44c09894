// Pure: the line that leads messages.jsonl after a compaction. It tells the agent what went where
// (it is a system message the model reads), and tells `wmem restore` exactly which bytes to put
// back: the archive's size and hash, and the size and hash of the lines that replaced it.

export interface CompactionMarker {
  version: 1;
  id: string;
  /** The archive, relative to working-memory/. */
  archive: string;
  archivedBytes: number;
  /** Absent when a quick cut left the counting to its finishing (state/archives.json has it then). */
  archivedLines?: number;
  archiveSha256: string;
  /** Bytes right after this line that stand in for archived lines (rewritten tool outputs); 0 for a plain cut. */
  replacedBytes: number;
  replacedSha256: string;
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
