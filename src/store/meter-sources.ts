// Everything the meter reads, loaded in one place before anything is computed (the meter itself
// is pure: src/memory/meter.ts): the user's window setting, what the agent's hooks recorded (its
// transcript, model and window), and messages.jsonl's own usage figures. `wmem context`,
// `wmem status` and the hooks all load through here, so they agree.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { defaultHome } from './names.js';
import type { Session, SessionMeta } from './session.js';
import { DEFAULT_TOKENS_MAX } from './session.js';
import { hookStateFile, readHookStateLoose, type HookState } from './hook-state.js';
import { findSecret } from '../memory/gate.js';
import type { UsageView } from '../memory/meter.js';
import { shellQuote } from '../ui/shell.js';
import type { MemoryWhere } from '../render/context.js';

export interface MeterSources {
  /** The user's window: WMEM_TOKENS_MAX, the hook's --tokens-max, or `init --tokens-max`. */
  setting?: number;
  /** The agent whose hooks serve this session ('claude-code'), when one does. */
  agent?: string;
  model?: string;
  agentWindow?: number;
  /** The last usage the agent's own transcript reports; null: it has one, with no usage since its last compaction. */
  transcriptUsage?: number | null;
  /** The smallest usage seen in this session: about what the agent sends besides the conversation. */
  floor?: number;
  /** The agent's own count right after its last compaction, while no usage has come since. */
  afterCompaction?: number;
  /** The window the agent assumes while no model is known. */
  agentDefault?: number;
  /** The agent's own transcript, where it keeps the conversation (messages.jsonl stays empty then). */
  transcript?: string;
  /** Settings that were ignored, and why (shown by commands; hooks log nothing for them). */
  warnings: string[];
  /** The floor was looked for in the project's other sessions (files no answer cache lists). */
  fromSiblings?: boolean;
}

/** What a hook has just read (or the load phase has read on from the hooks' cursor). */
export interface Observed {
  usage?: UsageView;
  model?: string;
  tokensMax?: number;
}

/** The agent whose hooks serve the session, as the caller found it (src/app/context.ts). */
export interface SessionAgent {
  /** The name in meta.json (`claude-code`). */
  name: string;
  /** The adapter id, whose hook state files the project's sessions keep, when wmem knows the agent. */
  id?: string;
  /** Its hook state in this session. */
  state?: HookState;
  /** The window the agent assumes while no model is known. */
  defaultWindow?: number;
}

/** A model id as agents write them; anything else (or a secret-shaped id) is not shown. */
export function cleanModelId(model: unknown): string | undefined {
  if (typeof model !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,79}(?:\[[0-9a-z]{1,8}\])?$/.test(model)) return undefined;
  return findSecret(model) ? undefined : model;
}

/** Why WMEM_TOKENS_MAX is ignored, when it is set to something that is not a window. */
function badEnvTokensMax(env: NodeJS.ProcessEnv): string[] {
  const raw = env.WMEM_TOKENS_MAX;
  if (raw === undefined || raw === '' || envTokensMax(env) !== undefined) return [];
  return [`WMEM_TOKENS_MAX=${JSON.stringify(raw.slice(0, 40))} is not a positive whole number of tokens; ignored (unset it, or give the window, e.g. 200000)`];
}

/** A positive whole number from the environment, or undefined. */
export function envTokensMax(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.WMEM_TOKENS_MAX;
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  return /^\s*\d+\s*$/.test(raw) && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

const SIBLINGS_READ = 8;

/**
 * The smallest usage the hooks saw in the project's most recently active other sessions. Read
 * with the synchronous calls: an agent that reports no usage (Droid, Kilo) asks on every prompt,
 * and the first fs.promises call loads node:fs/promises and readline's internals (~2 ms a start).
 */
async function projectFloor(session: Session, agent: string): Promise<number | undefined> {
  let names: string[];
  try {
    names = readdirSync(session.project.dir, { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== session.id).map((d) => d.name);
  } catch {
    return undefined;
  }
  const stamped = names.map((name) => {
    const file = hookStateFile(path.join(session.project.dir, name, 'state'), agent);
    return { file, mtime: mtimeOf(file) };
  });
  const recent = stamped.filter((s) => s.mtime >= 0).sort((a, b) => b.mtime - a.mtime).slice(0, SIBLINGS_READ);
  const floors = (await Promise.all(recent.map((s) => readHookStateLoose(path.dirname(s.file), agent)))).map((st) => st?.floor).filter((f): f is number => typeof f === 'number' && f > 0);
  return floors.length ? Math.min(...floors) : undefined;
}

/** A file's modification time, -1 when it cannot be read (missing, not a folder, no access). */
function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/** Sessions created before windows were looked up wrote the default into meta.json: not a setting. */
function metaSetting(meta: SessionMeta | undefined): number | undefined {
  const n = meta?.tokensMax;
  return typeof n === 'number' && n > 0 && n !== DEFAULT_TOKENS_MAX ? n : undefined;
}

/**
 * `agent`: the agent serving the session, its hook state and window; `observed.usage`: its
 * transcript as of now. Both are read by the caller, which knows the agent's adapter.
 */
export async function loadMeterSources(session: Session, meta: SessionMeta | undefined, env: NodeJS.ProcessEnv, observed?: Observed, serving?: SessionAgent): Promise<MeterSources> {
  const state = serving?.state;
  const usage = observed?.usage;
  const agent = serving?.name;
  const sources: MeterSources = {
    warnings: badEnvTokensMax(env),
    setting: envTokensMax(env) ?? observed?.tokensMax ?? state?.tokensMax ?? metaSetting(meta),
    // The transcript's latest response first: the user may switch models mid-session.
    model: cleanModelId(usage?.model) ?? cleanModelId(observed?.model) ?? cleanModelId(state?.model) ?? cleanModelId(meta?.model),
    agentWindow: usage?.window,
    floor: state?.floor,
  };
  // A session's first prompt comes before any usage: what the agent sent besides the conversation
  // in this project's other sessions is the best figure there is (its system prompt and tools).
  if (agent && usage?.lastUsage == null && !state?.floor) {
    sources.floor = await projectFloor(session, serving?.id ?? 'claude');
    sources.fromSiblings = true;
  }
  if (state?.transcript?.path) sources.transcript = state.transcript.path;
  if (agent) {
    sources.agent = agent;
    sources.agentDefault = serving?.defaultWindow;
  }
  if (usage) sources.transcriptUsage = usage.lastUsage;
  if (usage?.lastUsage === null && usage.afterCompaction) sources.afterCompaction = usage.afterCompaction;
  return sources;
}

/** The `wmem` command line that reaches this session from the agent's shell. */
function wmemCommand(session: Session, home: string): string {
  const parts = ['wmem'];
  if (home !== defaultHome(process.env)) parts.push('--home', shellQuote(home));
  if (session.source !== 'current') parts.push('--session', session.id);
  return parts.join(' ');
}

/** The real paths and the way to compact: the agent's own command (Claude Code's /compact), else wmem's. */
export function memoryWhere(session: Session, home: string, agentCompact: string | undefined): MemoryWhere {
  return {
    overview: session.paths.overview,
    scratch: session.paths.scratch,
    detailDir: session.paths.detailDir,
    compact: agentCompact ?? `'${wmemCommand(session, home)} compact'`,
  };
}
