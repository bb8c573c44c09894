// A quick cut's link check (quick-cut.ts) on the other core: grep -F reads the history itself
// (the cut's open file, as its standard input) while the return goes on with its writes, where
// the check in this thread took ~60 ms of the return's critical path (bench/README.md). In the
// same child, once grep is done, the run that finishes the cut (`wmem compact --finish`) takes its
// place (exec): the return forks one process, as before, and that fork no longer comes after the
// check. The child execs it only once this process has exited (its end of a pipe closed): on a
// busy machine the finishing's start would otherwise take CPU from the return's last steps.
// Any doubt about grep's answer (no /bin/sh or grep, another grep, an error, output it does not
// recognise) gives undefined, and the caller checks in this thread instead: "no" stays exact.

/** A command to run in the check's child once grep is done (detached, stdio closed). */
export interface ThenRun {
  file: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

export interface GrepCheck {
  /** Whether `then` was handed to the child (it runs after grep, even if this process dies). */
  thenStarted: boolean;
  /** The byte offset of the first match, -1 when nothing matched, undefined when unknown. */
  firstMatch: Promise<number | undefined>;
}

/**
 * sh: the system's grep (`command -p`: the default PATH, so no wrapper named grep earlier on the
 * user's PATH; GREP_OPTIONS unset, which greps before 3.6 still read: `-x` or `-w` there would
 * hide a match), its first matching line (-m 1: it stops there) with each match's offset (-b -o), then
 * its exit status; then, for `then`, closes its output (the caller's answer is complete), waits
 * for end of file on fd 3 (this process gone) and execs it. SIGPIPE ignored: if this process dies
 * meanwhile, the finishing still starts (and rolls the run back, under the lock, as any next run
 * would).
 */
const SCRIPT = `trap '' PIPE; unset GREP_OPTIONS GREP_COLOR GREP_COLORS; LC_ALL=C command -p grep -F -a -b -o -m 1 -e "$WMEM_CHECK_NEEDLES"; echo "exit $?"; unset WMEM_CHECK_NEEDLES; [ $# -eq 0 ] && exit 0; exec </dev/null >/dev/null 2>&1; read -r _ <&3; exec 3<&-; exec "$@"`;

/**
 * Starts grep over the open file `fd` (from its offset 0: every read of the caller is positioned)
 * for any of `needles` (fixed strings without newlines); undefined when it could not start.
 */
export function startGrepCheck(fd: number, needles: string[], then?: ThenRun): GrepCheck | undefined {
  if (!needles.length || needles.some((n) => !n || n.includes('\n'))) return undefined;
  let child: import('node:child_process').ChildProcess;
  try {
    // Loaded here: the return loads it anyway to start the finishing; nothing else needs it.
    const { spawn } = process.getBuiltinModule('node:child_process');
    child = spawn('/bin/sh', ['-c', SCRIPT, 'wmem-check', ...(then ? [then.file, ...then.args] : [])], {
      // fd 3: held open by this process until it exits (never written).
      stdio: then ? [fd, 'pipe', 'ignore', 'pipe'] : [fd, 'pipe', 'ignore'],
      detached: true,
      env: { ...(then?.env ?? process.env), WMEM_CHECK_NEEDLES: needles.join('\n') },
    });
  } catch {
    return undefined;
  }
  child.on('error', () => {});
  if (child.pid === undefined || !child.stdout) return undefined;
  child.unref();
  (child.stdio[3] as import('node:net').Socket | null)?.unref();
  const out: Buffer[] = [];
  const stdout = child.stdout;
  const firstMatch = new Promise<number | undefined>((resolve) => {
    stdout.on('data', (data: Buffer) => out.push(data));
    stdout.on('error', () => resolve(undefined));
    // The pipe ends when `then` takes the child's place (its stdout is /dev/null) or sh exits.
    stdout.on('end', () => resolve(grepAnswer(Buffer.concat(out).toString('latin1'), new Set(needles))));
  });
  return { thenStarted: then !== undefined, firstMatch };
}

/**
 * The first match's offset from grep's output (`offset:match` lines, then `exit N`): -1 for exit
 * 1 and no output; undefined for anything else than a match of one of the needles with exit 0.
 */
export function grepAnswer(text: string, needles: Set<string>): number | undefined {
  const lines = text.split('\n');
  if (lines.pop() !== '') return undefined;
  const status = lines.pop();
  if (status === 'exit 1') return lines.length ? undefined : -1;
  if (status !== 'exit 0' || !lines.length) return undefined;
  const found = /^(\d+):(.*)$/.exec(lines[0]!);
  return found && needles.has(found[2]!) ? Number(found[1]) : undefined;
}
