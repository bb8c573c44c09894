// Writes an entry of the answer cache (store/answers.ts): after the full path answered a
// per-prompt command, so that the next identical call is answered by the first stage. A cache:
// not fsynced, written without the lock (two writers at once lose one entry, which only costs
// the next call the full path), and a failure is ignored.
import { atomicWrite } from './fsx.js';
import { ANSWERS_VERSION, PRESENT, answerKey, answersFile, folderId, readAnswers, type AnswerEntry, type AnswersFile, type Signature } from './answers.js';

/** Entries kept per session (context, context --part memory, a format or two, a hook's and a shell's). */
const ENTRIES_KEPT = 8;

/**
 * How long a file must have stood unchanged before an answer computed from it is kept. File
 * times advance by the kernel's clock tick (up to ~10 ms): a same-size write in place within the
 * tick of the signature would leave inode, size and times as they were, and the cache stale
 * (git's "racily clean" files). Files changed earlier than this are told apart by their times.
 */
export const SETTLE_MS = 2_000;

/**
 * The settle time this environment asks for: WMEM_SETTLE_MS (tests, whose edits all change a
 * file's size or inode, need not wait), else SETTLE_MS.
 */
export function settleMs(env: NodeJS.ProcessEnv): number {
  const asked = Number(env.WMEM_SETTLE_MS);
  return env.WMEM_SETTLE_MS && asked >= 0 ? asked : SETTLE_MS;
}

/** Whether no input changed within `settleMs` of `nowMs` (its change time: a write cannot set it back). */
export function settled(inputs: [string, Signature][], nowMs: number, settleMs: number): boolean {
  return unsettled(inputs, nowMs, settleMs).length === 0;
}

/** The inputs that changed within `settleMs` of `nowMs`: their signatures cannot tell a write within the same clock tick. */
export function unsettled(inputs: [string, Signature][], nowMs: number, settleMs: number): string[] {
  const before = BigInt(Math.floor(nowMs - settleMs)) * 1_000_000n;
  return inputs.filter(([, sig]) => !changeTimes(sig).every((ctime) => ctime <= before)).map(([file]) => file);
}

/** The change times in a signature (store/answers.ts): none for an absent file or a presence, two for a link. */
function changeTimes(sig: Signature): bigint[] {
  if (sig === '-' || sig === PRESENT) return [];
  return sig
    .replace(/^L/, '')
    .split('>')
    .filter((identity) => identity !== '-')
    .map((identity) => BigInt(identity.split(':')[3] ?? 'x'));
}

export async function saveAnswer(stateDir: string, argv: string[], answer: Omit<AnswerEntry, 'state'>, settleMs = SETTLE_MS): Promise<void> {
  try {
    if (!settled(answer.inputs, Date.now(), settleMs)) return;
    const entry: AnswerEntry = { ...answer, state: folderId(stateDir) };
    const key = answerKey(argv, entry.env);
    const old = readAnswers(stateDir)?.entries ?? {};
    // The newest last: the oldest go first when there are too many.
    const kept = Object.entries(old).filter(([k]) => k !== key).slice(-(ENTRIES_KEPT - 1));
    const file: AnswersFile = { v: ANSWERS_VERSION, entries: Object.fromEntries([...kept, [key, entry]]) };
    await atomicWrite(answersFile(stateDir), JSON.stringify(file), { durable: false });
  } catch {
    /* the next call answers in full, and tries again */
  }
}
