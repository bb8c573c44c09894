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
}

interface ProcessHandle {
  pid?: number;
  onexit: (code: number, signal: string) => void;
  spawn(options: object): number;
  close(): void;
  unref(): void;
}

/** Starts `file args…` in a session of its own (setsid); its pid, or undefined when it could not start. */
export function spawnDetached(file: string, args: string[], child: DetachedChild): number | undefined {
  const Process = processHandle();
  if (!Process) return spawnByModule(file, args, child);
  const handle = new Process();
  const fd = (n: number | undefined) => (n === undefined ? { type: 'ignore' } : { type: 'fd', fd: n });
  handle.onexit = (code, signal) => {
    handle.close();
    child.onExit?.(signal ? undefined : code);
  };
  const envPairs = Object.entries(child.env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`]));
  // The options ChildProcess gives this handle (lib/internal/child_process.js); an error is a negative errno.
  const err = handle.spawn({ file, args: [file, ...args], envPairs, stdio: [fd(child.stdin), fd(child.stdout), { type: 'ignore' }, ...(child.more ?? []).map(fd)], detached: true, windowsHide: true });
  if (err !== 0 || handle.pid === undefined) {
    handle.close();
    return undefined;
  }
  // Watched, it keeps this process until it exits (the caller waits for it anyway).
  if (!child.onExit) handle.unref();
  return handle.pid;
}

/** The write end of a pipe to a child: written synchronously (a few KB at most), then closed (the child reads to its end). */
export interface PipeEnd {
  fd: number;
  close(): void;
}

interface PipeHandle {
  fd: number;
  close(): void;
}

/**
 * spawnDetached with the child's descriptors laid out by `fds` (0, 1, 2, 3, …: an open
 * descriptor of this process, 'pipe' for a new pipe this process writes to, undefined for
 * /dev/null), by Node's spawn handle only; undefined where that handle is not to be used or the
 * child could not start (the caller then takes another way). The pipes come back in `fds`' order.
 */
export function spawnDetachedPiped(file: string, args: string[], child: { fds: (number | 'pipe' | undefined)[]; env: NodeJS.ProcessEnv; onExit: (code: number | undefined) => void }): { pid: number; pipes: PipeEnd[] } | undefined {
  const Process = processHandle();
  const pipeWrap = Process && bindingOf<{ Pipe?: new (type: number) => PipeHandle; constants?: { SOCKET?: number } }>('pipe_wrap');
  if (!Process || typeof pipeWrap?.Pipe !== 'function' || pipeWrap.constants?.SOCKET === undefined) return undefined;
  const { Pipe } = pipeWrap;
  const pipes: PipeHandle[] = [];
  const stdio = child.fds.map((n) => {
    if (n !== 'pipe') return n === undefined ? { type: 'ignore' } : { type: 'fd', fd: n };
    const handle = new Pipe(pipeWrap.constants!.SOCKET!);
    pipes.push(handle);
    return { type: 'pipe', handle };
  });
  const handle = new Process();
  handle.onexit = (code, signal) => {
    handle.close();
    child.onExit(signal ? undefined : code);
  };
  const envPairs = Object.entries(child.env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`]));
  const err = handle.spawn({ file, args: [file, ...args], envPairs, stdio, detached: true, windowsHide: true });
  if (err !== 0 || handle.pid === undefined || pipes.some((p) => !(p.fd >= 0))) {
    for (const p of pipes) p.close();
    handle.close();
    return undefined;
  }
  return { pid: handle.pid, pipes: pipes.map((p) => ({ fd: p.fd, close: () => p.close() })) };
}

function bindingOf<T>(name: string): T | undefined {
  try {
    return (process as unknown as { binding: (name: string) => T }).binding(name);
  } catch {
    return undefined;
  }
}

/** Node's spawn handle, or undefined where it is not to be used. */
function processHandle(): (new () => ProcessHandle) | undefined {
  try {
    const binding = (process as unknown as { binding?: (name: string) => { Process?: new () => ProcessHandle } }).binding;
    // A wrapped process.binding (--pending-deprecation) would print a deprecation warning.
    if (typeof binding !== 'function' || binding.name !== 'binding') return undefined;
    // The handle's options are internal to Node and checked in C++ (a wrong shape aborts the
    // process, which no catch sees): used only on the major whose shape is known, 20.
    if (process.versions.node.split('.')[0] !== '20') return undefined;
    const Process = binding('process_wrap').Process;
    return typeof Process === 'function' ? Process : undefined;
  } catch {
    return undefined;
  }
}

function spawnByModule(file: string, args: string[], child: DetachedChild): number | undefined {
  try {
    const { spawn } = process.getBuiltinModule('node:child_process');
    const started = spawn(file, args, { detached: true, stdio: [child.stdin ?? 'ignore', child.stdout ?? 'ignore', 'ignore', ...(child.more ?? [])], env: child.env });
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
    return started.pid;
  } catch {
    return undefined;
  }
}
