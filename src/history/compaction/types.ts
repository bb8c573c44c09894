// The shapes of a compaction's options, environment and result: shared by the entry point
// (compact.ts) and the full way (full-cut.ts), kept apart so neither imports the other for them.

export type CompactTarget = 'conversation' | 'tools' | 'all';
export type CompactStrategy = 'archive' | 'summarize';

export interface CompactOptions {
  target: CompactTarget;
  strategy: CompactStrategy;
  keepRecent: number;
  /** At most this many steps kept (docs/compaction.md); no limit when absent. */
  keepSteps?: number;
  /** Archive file, relative to working-memory/ (or absolute inside it). */
  archiveTo?: string;
  /** Shell command: the transcript on stdin, the summary on stdout. */
  summarizer?: string;
  timeoutMs?: number;
  dryRun?: boolean;
  /** Finish a quick cut (its transcript and overview lines) before returning, never in the background. */
  wait?: boolean;
  /** Archived bytes from which a plain cut goes the quick way (default QUICK_CUT_BYTES; tests lower it). */
  quickFrom?: number;
}

export interface CompactEnv {
  now(): Date;
  warn(msg: string): void;
  /** Show progress on stderr (only when it is a terminal and not --json). */
  progress?: boolean;
  /**
   * Called, under the lock, after a quick cut commits: true when it has started something that
   * finishes it (the transcript, the overview lines) in the background. Otherwise, or when
   * absent, the finishing is done before compactSession returns.
   */
  finishLater?: () => boolean;
  /**
   * The command that finishes a quick cut (`wmem compact --finish` for this session), for a quick
   * cut to start in its link check's child once the check is done and the command has exited
   * (or a few seconds on, if it lives on: it may then come before the commit; quick-cut.ts); `finishStarted` is then told, under the lock, and finishLater need not start
   * another. Absent with --wait.
   */
  finishCommand?: { file: string; args: string[]; env?: NodeJS.ProcessEnv };
  finishStarted?: () => void;
}

/** Counts of a compaction; null where a quick cut leaves the counting to its finishing. */
export interface CompactCounts {
  linesBefore: number | null;
  linesArchived: number | null;
  messagesArchived: number | null;
  turnsBefore: number | null;
  turnsArchived: number | null;
  turnsKept: number;
  /** Steps in the kept part (null where a quick cut's count is not known). */
  stepsKept: number | null;
  bytesBefore: number;
  bytesArchived: number;
  toolOutputsPruned: number;
  linesAfter: number;
}

export interface CompactResult {
  session: string;
  dryRun: boolean;
  compacted: boolean;
  /** Why nothing was done, when compacted is false. */
  reason?: string;
  target: CompactTarget;
  strategy: CompactStrategy;
  keepRecent: number;
  keepSteps?: number;
  /** The cut fell inside a turn: its opening message is repeated after the marker. */
  cutInsideTurn?: boolean;
  /** Archive path relative to working-memory/, and absolute. */
  archive?: string;
  archivePath?: string;
  /** Detail files written, relative to working-memory/. */
  details: string[];
  counts: CompactCounts;
  /** The summary (strategy summarize), and the line added to Recent Actions. */
  summary?: string;
  recentLine?: string;
  /** What recovery did with an interrupted earlier run, if anything. */
  recovered?: string;
  /** A quick cut: its transcript and overview lines are being written in the background, or were written before returning. */
  finishing?: 'background' | 'done';
}
