// What hooks leave behind for people: errors appended to <home>/logs/hooks.log (a hook never
// reports on stdout or by its exit code), and when each event last fired, one small file per
// event under <home>/logs/hooks-last/ (no read-modify-write on the hot path), for `wmem doctor`.
import { promises as fs } from 'node:fs';
import { appendDurably, assertNoLinkBetween, atomicWrite, readTextIfExists } from '../store/fsx.js';
import { joinName } from '../store/names.js';
import { isoTime } from '../ui/time.js';

const MAX_LOG_BYTES = 1024 * 1024;

export function logsDir(home: string): string {
  return joinName(home, 'logs');
}

export function hookLogFile(home: string): string {
  return joinName(logsDir(home), 'hooks.log');
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' | ').slice(0, 2000);
}

/**
 * What a failed hook keeps is redacted: its message may quote the input (a JSON parse error
 * shows the first bytes) and its session id is the input's, refused or not. Loaded only on
 * failure, to keep the per-prompt path lean.
 */
async function redacted<T extends { note?: string; session?: string }>(fields: T): Promise<T> {
  const { redactSecrets } = await import('../memory/gate.js');
  const out = { ...fields };
  if (out.note !== undefined) out.note = redactSecrets(out.note);
  if (out.session !== undefined) out.session = redactSecrets(out.session);
  return out;
}

/** Appends one line; past 1 MiB the log is moved to hooks.log.1 first. Never throws. */
export async function logHook(home: string, now: Date, event: string, level: 'error' | 'note', text: string, from?: string): Promise<void> {
  const file = hookLogFile(home);
  try {
    const { note: message = '', session } = await redacted({ note: text, session: from });
    assertNoLinkBetween(home, file); // a linked logs/ would take the log (and its rename) elsewhere
    const size = (await fs.stat(file).catch(() => undefined))?.size ?? 0;
    if (size > MAX_LOG_BYTES) await fs.rename(file, `${file}.1`).catch(() => {});
    const who = session === undefined ? '' : ` session=${/^[A-Za-z0-9._-]{1,128}$/.test(session) ? session : JSON.stringify(session.slice(0, 200))}`;
    await appendDurably(file, `${isoTime(now)} ${event}${who} ${level}: ${oneLine(message)}\n`);
  } catch {
    /* the log is best effort: a hook must not fail because its log cannot be written */
  }
}

export interface FiredRecord {
  event: string;
  at: string;
  ok: boolean;
  session?: string;
  ms: number;
  /** What the hook did, or why it failed. */
  note?: string;
}

function firedFile(home: string, event: string): string {
  return joinName(joinName(logsDir(home), 'hooks-last'), `${event}.json`);
}

export async function recordFired(home: string, fired: FiredRecord): Promise<void> {
  try {
    const record = fired.ok ? fired : await redacted(fired);
    const file = firedFile(home, record.event);
    // A linked logs/ or hooks-last/ would have every hook write where the link points: logs/ is
    // looked at here, hooks-last/ by atomicWrite itself (a folder of wmem's own: a link refused).
    assertNoLinkBetween(home, joinName(logsDir(home), 'hooks-last'));
    // Bookkeeping (docs/guarantees.md): replaced atomically, not fsynced.
    await atomicWrite(file, JSON.stringify({ version: 1, ...record }) + '\n', { durable: false });
  } catch {
    /* best effort, as above */
  }
}

export async function readFired(home: string, event: string): Promise<FiredRecord | undefined> {
  const text = await readTextIfExists(firedFile(home, event)).catch(() => undefined);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as FiredRecord;
  } catch {
    return undefined;
  }
}

/** The last `n` lines of the hook log (for doctor). */
export async function lastLogLines(home: string, n: number): Promise<string[]> {
  const text = await readTextIfExists(hookLogFile(home)).catch(() => undefined);
  if (!text) return [];
  return text.trimEnd().split('\n').slice(-n);
}
