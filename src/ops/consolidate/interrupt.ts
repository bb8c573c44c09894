// SIGINT and SIGTERM during long work that commits at the end (a consolidation of a large
// scratch.md): before the first commit, a signal stops the work and leaves the old state as it
// was; once the commits have begun (a few renames), they finish, so the state is the new one.
import { ioError } from '../../ui/errors.js';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export class Interruptible {
  private received?: NodeJS.Signals;
  private committing = false;
  private readonly onSignal = (signal: NodeJS.Signals) => {
    this.received ??= signal;
  };

  constructor(private readonly what: string) {
    for (const signal of SIGNALS) process.on(signal, this.onSignal);
  }

  /** Throws if a signal came while nothing is committed yet (call between steps). */
  check(): void {
    if (!this.received || this.committing) return;
    throw ioError(`${this.what} interrupted by ${this.received} before anything was written: every file is as it was`, undefined, 'run it again when you are ready');
  }

  /** The last chance to stop; from here the commits run to the end. */
  beginCommits(): void {
    this.check();
    this.committing = true;
  }

  dispose(): void {
    for (const signal of SIGNALS) process.off(signal, this.onSignal);
  }
}

/** Runs `work` with SIGINT/SIGTERM deferred to its checks (see Interruptible). */
export async function interruptibly<T>(what: string, work: (guard: Interruptible) => Promise<T>): Promise<T> {
  const guard = new Interruptible(what);
  try {
    return await work(guard);
  } finally {
    guard.dispose();
  }
}
