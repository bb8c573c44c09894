// A quick cut's link check (quick-cut.ts) on the other core: grep -F reads the history itself
// (the cut's open file, as its standard input) while the return goes on with its writes, where
// the check in this thread took ~60 ms of the return's critical path (bench/README.md). The
// same child then leaves the run that finishes the cut (`wmem compact --finish`) to start in the
// background once the return has exited, and exits: the return forks one process, as before, and
// that fork no longer comes after the check. grep's answer goes to a file the return holds open (no pipes: their sockets
// cost the return more than the fork, bench/README.md, compact5), complete when the child has exited.
// With a second group of needles a second grep runs beside the first (GNU grep finds strings
// that share a first byte by memchr for it: the ids and the escapes apart cost it a quarter of
// the two in one, bench/README.md, compact7): the first group's grep (the longer: the kept
// part's ids) is then started directly, without the shell's start and forks before it, and the
// script's child runs the second and keeps `then` (bench/README.md, compact11).
// Any doubt about grep's answer (no /bin/sh or grep, another grep, an error, output it does not
// recognise) gives undefined, and the caller checks in this thread instead: "no" stays exact.
import { accessSync, closeSync, constants, openSync, readSync, unlinkSync } from 'node:fs';
import { spawnDetached } from '../../store/spawn.js';

/** A command to run in the check's child once grep is done and the caller has exited (detached, stdio closed). */
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
 * its exit status; with a second group of needles, a second grep beside it in the background over
 * fd 3 (the same file, its own offset) into fd 4. Once both are done, it exits (the answers are
 * complete) and leaves behind a background shell that starts `then` once the process that
 * started the check (the compaction's return) has exited: its read of fd 5, a socket whose other
 * end only that process holds (spawn.ts `hold`), returns at end of file when that process is
 * gone, however it ended (a kill included), or when it let go of it (THEN_AFTER_MS after the
 * check's start, for a caller that lives on). No polling: no `sleep` forks beside the return's last steps. A Node start beside the
 * return's commit, fsyncs and exit took CPU from them on two cores: the return's median wall
 * 352 against 268 ms at load 4.5 without it (bench/README.md, compact9). `then` takes the session
 * lock after the return anyway; if the return died, it rolls the run back or finishes it, under
 * the lock, as any next run would. `set +e` first: a shell started with errexit (bash reads an
 * exported SHELLOPTS) would end at a grep that finds nothing, or at the read's end of file, and
 * never start `then`.
 */
const SCRIPT = `set +e; unset GREP_OPTIONS GREP_COLOR GREP_COLORS; c() { LC_ALL=C \${WMEM_CHECK_GREP:-command -p grep} -F -a -b -o -m 1 -e "$1"; echo "exit $?"; }; if [ -n "\${WMEM_CHECK_OTHERS+x}" ]; then c "$WMEM_CHECK_OTHERS" <&3 >&4 3<&- 4>&- 5<&- & fi; c "$WMEM_CHECK_NEEDLES" 3<&- 4>&- 5<&-; wait; exec 3<&- 4>&-; unset WMEM_CHECK_NEEDLES WMEM_CHECK_OTHERS WMEM_CHECK_GREP; [ $# -eq 0 ] && exit 0; exec </dev/null >/dev/null 2>&1; { read -r w <&5; exec "$@" 5<&-; } & exit 0`;

/**
 * Where grep's answer goes: `answer`, a new file (removed once open). A second group of needles
 * (`others`) is searched by a second grep beside the first, over `otherFd` (the same file opened
 * again: each grep reads through its own offset), its answer in `otherAnswer`.
 */
export interface GrepCheckOptions {
  answer: string;
  then?: ThenRun;
  others?: { needles: string[]; fd: number; answer: string };
  /** Both groups in the script's child, as where no system grep is found (tests compare the two ways). */
  scriptOnly?: boolean;
  /** Told how to let `then` start before this process exits (tests); by default after THEN_AFTER_MS. */
  letGo?: (release: () => void) => void;
}

/**
 * Starts grep over the open file `fd` (from its offset 0: every read of the caller is positioned)
 * for any of `needles` (fixed strings without newlines); undefined when it could not start.
 * firstMatch is the first match of either grep's needles (earliest()).
 */
export function startGrepCheck(fd: number, needles: string[], options: GrepCheckOptions): GrepCheck | undefined {
  const valid = (group: string[]) => group.length > 0 && !group.some((n) => !n || n.includes('\n'));
  if (!valid(needles)) return undefined;
  const others = options.others && valid(options.others.needles) ? options.others : undefined;
  const out = openAnswer(options.answer);
  if (out === undefined) return undefined;
  const otherOut = others && openAnswer(others.answer);
  if (others && otherOut === undefined) {
    closeSync(out);
    return undefined;
  }
  const { then } = options;
  if (others && !options.scriptOnly) {
    const grep = systemGrep();
    const first = grep && directGrep(grep, fd, needles, out);
    if (first) {
      // The second group and `then` in the script's child, as with one group, through the same
      // grep (earliest() reads the first group's "nothing" as a grep that did not behave: both
      // answers must come from one program, wherever `command -p` would look first).
      const second = scriptCheck(others.fd, [others.needles], otherOut!, then, options.letGo, undefined, grep);
      if (second) return { thenStarted: then !== undefined, firstMatch: Promise.all([first, second]).then(([a, b]) => earliest(a, b)) };
      // No answer then: the direct grep still runs to its end (its handle keeps this process up
      // until it exits; it reads what the in-process check reads anyway), its answer unread.
      closeSync(otherOut!);
      return undefined;
    }
  }
  const firstMatch = scriptCheck(fd, others ? [needles, others.needles] : [needles], out, then, options.letGo, others ? [others.fd, otherOut!] : undefined);
  if (!firstMatch) {
    closeSync(out);
    if (otherOut !== undefined) closeSync(otherOut);
    return undefined;
  }
  return { thenStarted: then !== undefined, firstMatch };
}

/**
 * The system's grep, where `command -p grep` finds it on most systems; undefined elsewhere (the
 * script then finds it). Started directly, the first group's grep runs ~5 ms sooner than through
 * `sh` (its start, a subshell, a fork for grep: bench/README.md, compact11).
 */
function systemGrep(): string | undefined {
  for (const file of ['/usr/bin/grep', '/bin/grep']) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // the next
    }
  }
  return undefined;
}

/**
 * grep over `fd` for `needles` started directly (no shell), its answer in `out` (closed here
 * once read); undefined when it could not start. The environment is only LC_ALL=C: no
 * GREP_OPTIONS, GREP_COLOR or GREP_COLORS, as the script unsets them.
 */
function directGrep(file: string, fd: number, needles: string[], out: number): Promise<number | undefined> | undefined {
  let settle!: (answer: number | undefined) => void;
  const answer = new Promise<number | undefined>((resolve) => (settle = resolve));
  const pid = spawnDetached(file, ['-F', '-a', '-b', '-o', '-m', '1', '-e', needles.join('\n')], {
    stdin: fd,
    stdout: out,
    env: { LC_ALL: 'C' },
    onExit: (code) => {
      settle(code === undefined ? undefined : grepAnswer(`${readAnswer(out)}exit ${code}\n`, new Set(needles)));
      closeSync(out);
    },
  });
  return pid === undefined ? undefined : answer;
}

/**
 * The script's child (SCRIPT) over `fd` for one or two groups of needles (the second over
 * more[0], its answer in more[1]), `then` left to it (started once this process has exited or
 * `letGo`'s release was called); the answers' files are closed here once
 * read. Undefined when it could not start (`out` and more[1] are then left to the caller).
 */
function scriptCheck(fd: number, groups: string[][], out: number, then: ThenRun | undefined, letGo = letGoLater, more?: [number, number], grep?: string): Promise<number | undefined> | undefined {
  const [needles, others] = groups as [string[], string[] | undefined];
  let settle!: (answer: number | undefined) => void;
  const firstMatch = new Promise<number | undefined>((resolve) => (settle = resolve));
  const env: NodeJS.ProcessEnv = { ...(then?.env ?? process.env), WMEM_CHECK_NEEDLES: needles.join('\n') };
  if (others) env.WMEM_CHECK_OTHERS = others.join('\n');
  else delete env.WMEM_CHECK_OTHERS;
  // A path systemGrep() found (no space, no quote: it is split as words by the script), else
  // `command -p grep`.
  if (grep) env.WMEM_CHECK_GREP = grep;
  else delete env.WMEM_CHECK_GREP;
  const pid = spawnDetached('/bin/sh', ['-c', SCRIPT, 'wmem-check', ...(then ? [then.file, ...then.args] : [])], {
    stdin: fd,
    stdout: out,
    ...(more ? { more } : {}),
    ...(then ? { hold: { fd: 5, held: letGo } } : {}),
    env,
    onExit: (code) => {
      if (code !== 0) settle(undefined);
      else {
        const first = grepAnswer(readAnswer(out), new Set(needles));
        settle(others ? earliest(first, grepAnswer(readAnswer(more![1]), new Set(others))) : first);
      }
      closeSync(out);
      if (more) closeSync(more[1]);
    },
  });
  return pid === undefined ? undefined : firstMatch;
}

/**
 * How long after the check's start `then` is held back at most, for every caller: the CLI's return
 * exits well before it, but a process that lives on (several sessions compacted, a return slowed
 * by a slow disk or a history of gigabytes) lets it start then. It then takes the session lock
 * after this run, and waits for it there if need be (as the poll's cap of 150 before it did).
 */
const THEN_AFTER_MS = 3000;

/** Lets go of the socket `then` waits on after THEN_AFTER_MS, unless this process has exited by then (the timer keeps nothing running). */
function letGoLater(release: () => void): void {
  setTimeout(release, THEN_AFTER_MS).unref();
}

/** A new file for an answer, removed once open (the child writes through its descriptor, this process reads through its own). */
function openAnswer(answer: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(answer, 'wx+', 0o600);
  } catch {
    return undefined;
  }
  try {
    unlinkSync(answer);
  } catch {
    // a name left behind is swept with the session's other temp files (its pid is in it)
  }
  return fd;
}

/**
 * Two greps' answers as one: unknown if either is, else the earlier match. -1 when the first
 * found nothing, whatever the second found: the first group is the one that must match (the kept
 * part's ids), and its "nothing" is the caller's sign of a grep that did not behave.
 */
export function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined || b === undefined) return undefined;
  if (a === -1) return -1;
  return b === -1 ? a : Math.min(a, b);
}

/** What the child wrote (a few lines: the first match and the status; more is no answer anyway). */
function readAnswer(fd: number): string {
  const buffer = Buffer.alloc(64 << 10);
  try {
    return buffer.toString('latin1', 0, readSync(fd, buffer, 0, buffer.length, 0));
  } catch {
    return '';
  }
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
