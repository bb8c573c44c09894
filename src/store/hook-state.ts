// A session's record of what the agent's hooks have answered (state/<agent>-hooks.json, e.g.
// claude-hooks.json): where the transcript was last read to, and which compaction the memory part
// was last delivered for.
// Read and written under the state folder's own lock, so hooks never wait on a long compaction.
import { redactSecrets } from '../memory/gate.js';
import { atomicWrite, ensureDir, withLock } from './fsx.js';
import { joinName } from './names.js';
import { readStateSync } from './regular-file.js';
import { fsError } from '../ui/errors.js';

/**
 * Where a transcript read stopped, kept here between hooks. Opaque except `path`: each agent's
 * reader (src/agents/<id>/) extends it with its own fields, which must survive JSON.
 */
export interface TranscriptCursor {
  path: string;
}

export interface HookState {
  version: 1;
  /** A SessionStart (or a first prompt) delivered the memory part. */
  started?: boolean;
  transcript?: TranscriptCursor;
  /** The compaction boundary the memory part was last delivered after. */
  answeredBoundary?: string;
  /** SessionStart(compact) came before its boundary reached the transcript: the next one is answered. */
  answerNextBoundary?: boolean;
  /** The model the agent said it runs on (SessionStart's `model`). */
  model?: string;
  /** The window the user gave the hook (`wmem install claude --tokens-max N`). */
  tokensMax?: number;
  /** The smallest usage seen: about what the agent sends besides the conversation (system prompt, tools). */
  floor?: number;
  /**
   * The memory part the conversation holds as last given (whole, or its changed blocks): its
   * digest, one digest per block, the compaction it followed and the transcript it went into.
   * What the next prompt sends again is computed against it (render/memory-resend.ts).
   */
  delivered?: { digest: string; blocks?: Record<string, string>; boundary?: string; transcript?: string };
  /** The archive PreCompact wrote, until PostCompact names it in Recent Actions. */
  lastArchive?: string;
  /** The last compaction whose transcript was archived (agents whose before-compact event is speculative). */
  archivedBoundary?: string;
}

/** One file per agent (a session is served by one agent; `agent` is the adapter id). */
export function hookStateFile(stateDir: string, agent = 'claude'): string {
  return joinName(stateDir, `${agent.replace(/[^a-z0-9-]/g, '')}-hooks.json`);
}

/** The state as last written, or undefined (none, or unreadable): for readers that change nothing. */
export async function readHookStateLoose(stateDir: string, agent = 'claude'): Promise<HookState | undefined> {
  try {
    const text = readStateSync(hookStateFile(stateDir, agent));
    if (!text) return undefined;
    const parsed = JSON.parse(text) as HookState;
    return parsed && typeof parsed === 'object' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

async function readHookState(file: string): Promise<HookState> {
  let text: string | undefined;
  try {
    text = readStateSync(file);
  } catch (err) {
    throw fsError(err, 'read', file); // a FIFO or device planted there: named, as for every file wmem keeps
  }
  if (!text) return { version: 1 };
  try {
    const parsed = JSON.parse(text) as HookState;
    return typeof parsed === 'object' && parsed !== null ? { ...parsed, version: 1 } : { version: 1 };
  } catch {
    // A torn or hand-edited state file only costs a rescan of the transcript.
    return { version: 1 };
  }
}

/**
 * The state as written: every string in it redacted. Model ids and usage come from the agent's
 * input or transcript (OpenCode's plugin passes them in), and the state is not the verbatim
 * record: a secret there would be kept for good and read back into what `status` shows.
 */
export function withoutSecrets<T>(value: T): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (Array.isArray(value)) return value.map(withoutSecrets) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutSecrets(v)])) as T;
  }
  return value;
}

/**
 * Runs `fn` on the state under the lock and writes it back when `fn` changed it. `brief`: `fn`
 * only changes the state in memory (no await of its own), so the whole hold is synchronous calls
 * (a read, the change, the replace) and needs no owner token, heartbeat or exit listeners (lock.ts).
 */
export async function updateHookState<T>(stateDir: string, fn: (state: HookState) => Promise<T>, agent = 'claude', brief = false): Promise<T> {
  await ensureDir(stateDir, true);
  const file = hookStateFile(stateDir, agent);
  return withLock(
    stateDir,
    async () => {
      const state = await readHookState(file);
      const before = JSON.stringify(state);
      const result = await fn(state);
      // Bookkeeping, not fsynced (docs/guarantees.md): a state lost in a power cut costs a rescan
      // of the transcript, or the memory part sent once more.
      if (JSON.stringify(state) !== before) await atomicWrite(file, JSON.stringify(withoutSecrets(state)) + '\n', { durable: false });
      return result;
    },
    { waitMs: 3_000, staleMs: 5_000, brief },
  );
}
