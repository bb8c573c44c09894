// The one error type commands throw on purpose. It carries the exit code docs/commands.md assigns
// (2 bad usage or input, 1 failure, 3 refused by a guard) and a hint saying what to do next.

export const EXIT = { ok: 0, failed: 1, usage: 2, refused: 3 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

// The lean per-prompt bundle and the full build each carry their own copy of this class, and a
// lean run can load modules from the full build; a registry-wide symbol lets `instanceof` see
// errors from either copy.
const WMEM_ERROR = Symbol.for('wmem.WmemError');

export class WmemError extends Error {
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[WMEM_ERROR] === true;
  }

  readonly [WMEM_ERROR] = true;
  readonly exitCode: ExitCode;
  readonly hint?: string;

  constructor(message: string, options: { exitCode?: ExitCode; hint?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'WmemError';
    this.exitCode = options.exitCode ?? EXIT.usage;
    this.hint = options.hint;
  }
}

export const usageError = (message: string, hint?: string) => new WmemError(message, { exitCode: EXIT.usage, hint });
export const ioError = (message: string, cause?: unknown, hint?: string) =>
  new WmemError(message, { exitCode: EXIT.failed, hint, cause });
export const refusedError = (message: string, hint?: string) => new WmemError(message, { exitCode: EXIT.refused, hint });

/** Turns a Node fs error into a one-line WmemError naming the path and what to do. */
export function fsError(err: unknown, action: string, path: string): WmemError {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (err instanceof WmemError) return err;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return ioError(`cannot ${action} ${path}: permission denied`, err, 'check the owner and mode of that path, or pass --home DIR');
    case 'EROFS':
      return ioError(`cannot ${action} ${path}: read-only file system`, err, 'pass --home DIR on a writable disk');
    case 'ENOSPC':
      return ioError(`cannot ${action} ${path}: no space left on device`, err, 'free some space and run the command again');
    case 'ENOTDIR':
      return ioError(`cannot ${action} ${path}: a parent of that path is not a folder`, err, 'pass --home DIR pointing at a folder');
    case 'ENOTREG':
      return ioError(`cannot ${action} ${path}: it is not a regular file (a FIFO, socket or device put there)`, err, 'remove it or move it away (wmem writes its own again), and run the command again');
    case 'ENOENT':
      return ioError(`cannot ${action} ${path}: no such file or folder`, err);
    case 'ELOOP':
      return ioError(`cannot ${action} ${path}: it is a symbolic link; wmem does not follow links out of its home`, err, 'remove the link (wmem writes its own file again)');
    case 'ENAMETOOLONG':
      return usageError(`cannot ${action} ${path.length > 120 ? `${path.slice(0, 117)}…` : path}: the name is too long for the file system`, 'give a shorter name');
    default:
      return ioError(`cannot ${action} ${path}: ${(err as Error)?.message ?? String(err)}`, err);
  }
}

/**
 * Why JSON.parse refused a text, by place only: Node's own message quotes the text's first bytes,
 * and a config file, a hook's stdin or a client's line may start with a secret.
 */
export function jsonBreak(err: unknown, text: string): string {
  const at = /position (\d+)/.exec((err as Error)?.message ?? '')?.[1];
  if (at === undefined) return `${text.length} characters`;
  const before = text.slice(0, Number(at));
  return `line ${before.split('\n').length}, column ${Number(at) - before.lastIndexOf('\n')}`;
}
