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
