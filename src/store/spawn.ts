// Starting a detached child without node:child_process where Node allows it. A quick compaction
// starts one before its commit (the link check, src/history/stream/grep-check.ts) and searches
// and full compactions start `wmem compact --finish`: node:child_process, with the ChildProcess,
// its EventEmitter and its sockets, cost the compact return ~27 M of its ~218 M instructions
// (valgrind, bench/README.md, compact5), the fork itself almost nothing of them. Node's own
// spawn handle (the one ChildProcess wraps) does the same fork and exec. Anything unusual (no such
// handle in this Node, a warning it would print: --pending-deprecation makes process.binding
// warn) takes node:child_process instead: the child is the same either way.

export interface DetachedChild {
  /** Standard input and output: open file descriptors of this process, else /dev/null. */
  stdin?: number;
  stdout?: number;
  /** Open file descriptors of this process given to the child as its fds 3, 4, … */
  more?: number[];
  env: NodeJS.ProcessEnv;
  /** Called once with the exit code (undefined: killed by a signal). Without it the child is left to run unwatched. */
  onExit?: (code: number | undefined) => void;
  /**
   * A socket given to the child as its descriptor `fd` (past stdio and `more`), whose other end
   * only this process holds (close-on-exec: no other child inherits it): a read of it in the
   * child returns, at end of file, once this process has exited, however it ended (a kill
   * included; a zombie not yet reaped holds no descriptor), or once `release` was called. `held`
   * is told `release` when the child has started.
   */
  hold?: { fd: number; held: (release: () => void) => void };
}

interface ProcessHandle {
  pid?: number;
  onexit: (code: number, signal: string) => void;
  spawn(options: object): number;
  close(): void;
  unref(): void;
}

/** Node's stream handle for a socket (pipe_wrap's Pipe): libuv makes the pair at the spawn. */
interface PipeHandle {
  close(): void;
  unref(): void;
}

type Binding = (name: string) => Record<string, unknown>;

/** Descriptors 3 … hold.fd - 1 the child gets: `more`, then nothing up to the held socket's. */
function moreStdio<T>(child: DetachedChild, fd: (n: number) => T, none: T): T[] {
  const more = (child.more ?? []).map(fd);
  if (child.hold) while (more.length < child.hold.fd - 3) more.push(none);
  return more;
}

/** Starts `file args…` in a session of its own (setsid); its pid, or undefined when it could not start. */
export function spawnDetached(file: string, args: string[], child: DetachedChild): number | undefined {
  const binding = nodeBinding();
  const Process = binding?.('process_wrap').Process as (new () => ProcessHandle) | undefined;
  const Pipe = child.hold ? (binding?.('pipe_wrap').Pipe as (new (type: number) => PipeHandle) | undefined) : undefined;
  if (typeof Process !== 'function' || (child.hold && typeof Pipe !== 'function')) return spawnByModule(file, args, child);
  const handle = new Process();
  const fd = (n: number | undefined) => (n === undefined ? { type: 'ignore' } : { type: 'fd', fd: n });
  handle.onexit = (code, signal) => {
    handle.close();
    child.onExit?.(signal ? undefined : code);
  };
  // A socket (pipe_wrap's type 0), its pair made by libuv at the spawn, close-on-exec here.
  const held = Pipe && new Pipe(0);
  const envPairs = Object.entries(child.env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`]));
  const stdio = [fd(child.stdin), fd(child.stdout), { type: 'ignore' }, ...moreStdio(child, fd, fd(undefined)), ...(held ? [{ type: 'pipe', handle: held }] : [])];
  // The options ChildProcess gives this handle (lib/internal/child_process.js); an error is a negative errno.
  const err = handle.spawn({ file, args: [file, ...args], envPairs, stdio, detached: true, windowsHide: true });
  if (err !== 0 || handle.pid === undefined) {
    handle.close();
    held?.close();
    return undefined;
  }
  // Watched, it keeps this process until it exits (the caller waits for it anyway).
  if (!child.onExit) handle.unref();
  if (held) {
    // Never read: it keeps nothing running, and its end closes with this process at the latest.
    held.unref();
    child.hold!.held(() => held.close());
  }
  return handle.pid;
}

/** Node's process.binding, or undefined where its handles are not to be used. */
function nodeBinding(): Binding | undefined {
  try {
    const binding = (process as unknown as { binding?: Binding }).binding;
    // A wrapped process.binding (--pending-deprecation) would print a deprecation warning.
    if (typeof binding !== 'function' || binding.name !== 'binding') return undefined;
    // The handles' options are internal to Node and checked in C++ (a wrong shape aborts the
    // process, which no catch sees): used only on the major whose shape is known, 20.
    if (process.versions.node.split('.')[0] !== '20') return undefined;
    return (name) => {
      try {
        return binding(name);
      } catch {
        return {};
      }
    };
  } catch {
    return undefined;
  }
}

function spawnByModule(file: string, args: string[], child: DetachedChild): number | undefined {
  try {
    const { spawn } = process.getBuiltinModule('node:child_process');
    const more = moreStdio<number | 'ignore'>(child, (n) => n, 'ignore');
    const started = spawn(file, args, { detached: true, stdio: [child.stdin ?? 'ignore', child.stdout ?? 'ignore', 'ignore', ...more, ...(child.hold ? ['pipe' as const] : [])], env: child.env });
    if (started.pid === undefined) {
      // Not started (ENOENT, EAGAIN, EMFILE…): the 'error' Node emits on the next tick is this
      // answer, and onExit is for a child that ran, as on the handle's path.
      started.on('error', () => {});
      return undefined;
    }
    let told = false;
    const tell = (code: number | undefined) => {
      if (!told) child.onExit?.(code);
      told = true;
    };
    started.on('error', () => tell(undefined));
    started.on('exit', (code) => tell(code ?? undefined));
    if (!child.onExit) started.unref();
    const held = child.hold && started.stdio[child.hold.fd];
    if (held) {
      // Read by the socket, but nothing comes: unreferenced, it keeps this process up no longer.
      held.on('error', () => {});
      (held as unknown as { unref(): void }).unref();
      child.hold!.held(() => held.destroy());
    }
    return started.pid;
  } catch {
    return undefined;
  }
}
