// The context use case: the memory part (stable, for the system prompt) and the meta part
// (volatile, the meter and hints) of a session, assembled for `wmem context`, the hooks and
// `wmem status`. Heavy work happens only when the inputs changed (the render cache in state/).
import { lstatSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMeta, resolveSession, type Session } from '../store/session.js';
import { readContextCache, writeContextCache, type ContextCache } from '../store/context-cache.js';
import { cleanModelId, loadMeterSources, memoryWhere, type MeterSources, type Observed, type SessionAgent } from '../store/meter-sources.js';
import { readHookStateLoose } from '../store/hook-state.js';
import { frozenHandoff } from '../store/handoff.js';
import { disabledByEnv, isOffAt, offFile, projectOff } from '../store/switch.js';
import type { SessionMeta } from '../store/session.js';
import type { UsageView } from '../memory/meter.js';
import { updateHistoryStats } from '../history/stream/stats.js';
import { HISTORY_USAGE } from '../agents/history-usage.js';
import { loadAgentHookByMetaName } from '../agents/lookup.js';
import { keptPart, renderMeta, type MemoryWhere } from '../render/context.js';
import { budgetForTokensMax, metaFigures, resolveWindow, type MetaFigures, type TokensSource } from '../memory/meter.js';
import type { AppEnv } from './env.js';
import { signContextInputs, signMemoryInputs } from './context-inputs.js';
import { signature, type Signature } from '../store/answers.js';
import { settleMs, unsettled } from '../store/answers-save.js';
import { hotStatePath } from '../store/paths.js';
import { readRegularSync } from '../store/regular-file.js';

export interface ContextOptions {
  part?: 'all' | 'memory' | 'meta';
  tokensUsed?: number;
  tokensMax?: number;
  budget?: number;
}

export interface AssembledContext {
  memory: string;
  /** copyOf(memory).digest (render/memory-resend.ts: composed from its segments' digests, not digestOf of the text), kept with it in the render cache. */
  memoryDigest: string;
  /** Each segment's digest (render/memory-resend.ts copyOf's blocks), for a part whole or cut. */
  memoryBlocks?: Record<string, string>;
  meta: MetaFigures;
  metaText: string;
  where: MemoryWhere;
  /** The agent whose hooks serve the session, and its transcript, when there is one. */
  agent?: string;
  transcript?: string;
  /** Settings that were ignored, and why. */
  warnings: string[];
  /** Read files besides the session's own (the project's other sessions): no answer cache can list them. */
  fromSiblings?: boolean;
}

export interface AssembleOptions extends Omit<ContextOptions, 'part'> {
  wantMeta: boolean;
  /** What a hook has just read from the agent's transcript and input. */
  observed?: Observed;
}

/** Where the command runs: the home (for the hints' command lines) and the environment (settings). */
export interface Surroundings {
  home: string;
  env: NodeJS.ProcessEnv;
}

/** The agent serving the session: Claude Code's sessions say so by their hook state (older ones have no meta.json agent). */
interface ServingAgent extends SessionAgent {
  /** Its transcript as of now, read on from where the hooks left off (never written back here). */
  usage?: UsageView;
  compactCommand?: string;
}

async function loadAgent(session: Session, meta: SessionMeta | undefined, observed: Observed | undefined): Promise<ServingAgent | undefined> {
  const claudeState = await readHookStateLoose(session.paths.stateDir, 'claude');
  const name = claudeState ? 'claude-code' : typeof meta?.agent === 'string' ? meta.agent : undefined;
  if (!name) return undefined;
  const adapter = await loadAgentHookByMetaName(name);
  if (!adapter) return { name, state: claudeState, usage: observed?.usage };
  const state = adapter.id === 'claude' ? claudeState : await readHookStateLoose(session.paths.stateDir, adapter.id);
  let usage = observed?.usage;
  const cursor = state?.transcript;
  if (!usage && cursor?.path && adapter.transcript) {
    try {
      usage = (await adapter.transcript.read(cursor.path, cursor)).view;
    } catch {
      // Moved or deleted since: what the hooks last saw (a cursor that carries it) is the best figure there is.
      usage = 'lastUsage' in cursor ? (cursor as unknown as UsageView) : undefined;
    }
  }
  return { name, id: adapter.id, state, usage, defaultWindow: adapter.defaultWindow, compactCommand: adapter.compactCommand };
}

/** Everything the parts are computed from, read first (the render cache says what is unchanged). */
interface Inputs {
  cache: ContextCache;
  sources: MeterSources;
  compactCommand?: string;
  history: HistoryRead;
  handoff?: string;
}

async function loadInputs(session: Session, around: Surroundings, observed: Observed | undefined): Promise<Inputs> {
  const cache = await readContextCache(session.paths.stateDir);
  // A broken meta.json only loses its settings here; `wmem status` and `wmem init` report it.
  const meta = await readMeta(session.paths).catch(() => undefined);
  const agent = await loadAgent(session, meta, observed);
  const sources = await loadMeterSources(session, meta, around.env, { ...observed, usage: agent?.usage }, agent);
  const history = await updateHistoryStats(session.paths.messages, cache.history, HISTORY_USAGE);
  // The handoff frozen at the session's start, until the session's own compaction (docs/context.md).
  const handoff = agent?.state?.answeredBoundary === undefined ? frozenHandoff(meta) : undefined;
  return { cache, sources, compactCommand: agent?.compactCommand, history, handoff };
}

export async function assembleContext(session: Session, around: Surroundings, options: AssembleOptions): Promise<AssembledContext> {
  const inputs = await loadInputs(session, around, options.observed);
  const { cache, sources } = inputs;
  let { history } = inputs;
  const window = resolveWindow({
    flag: options.tokensMax,
    setting: sources.setting,
    agentWindow: sources.agentWindow ?? history.view.window,
    model: sources.model ?? cleanModelId(history.view.model),
    agentDefault: sources.agentDefault,
    reported: sources.transcriptUsage ?? history.view.lastUsage ?? undefined,
  });
  const budget = options.budget ?? budgetForTokensMax(window.tokensMax);
  const where = memoryWhere(session, around.home, inputs.compactCommand);
  const rendered = await memoryPart(session, cache, { where, handoff: inputs.handoff }, budget, around.env);
  const memory = rendered.text;
  let dirty = rendered.dirty;

  let figures: MetaFigures | undefined;
  if (options.wantMeta) {
    let tokensUsed: number;
    let tokensSource: TokensSource = 'usage';
    if (options.tokensUsed !== undefined) {
      tokensUsed = options.tokensUsed;
      tokensSource = 'flag';
    } else if (typeof sources.transcriptUsage === 'number') {
      tokensUsed = sources.transcriptUsage;
    } else if (history.view.lastUsage !== null) {
      tokensUsed = history.view.lastUsage;
    } else {
      const counted = await estimateTokens(session, cache, history, memory, rendered.digest);
      history = counted.history;
      dirty ||= counted.dirty;
      // What the agent counted right after its compaction, else what it sends besides the
      // conversation (system prompt, tools) as last seen; plus what this count covers.
      tokensUsed = counted.tokens + (sources.afterCompaction ?? sources.floor ?? 0);
      tokensSource = 'estimate';
    }
    figures = metaFigures({ tokensUsed, tokensSource, window, messages: history.view.messages, memorySize: memory.length, maintained: rendered.maintained });
  }
  if (history.changed) {
    cache.history = history.stats;
    dirty = true;
  }
  if (dirty || rendered.recalled) await writeContextCache(session.paths.stateDir, cache, !dirty);
  return { memory, memoryDigest: rendered.digest, memoryBlocks: rendered.blockDigests, meta: figures!, metaText: figures ? renderMeta(figures, where) : '', where, agent: sources.agent, transcript: sources.transcript, warnings: sources.warnings, fromSiblings: sources.fromSiblings };
}

/**
 * The code that renders: the build's stamp (dist/build-stamp, written once by `npm run build` after
 * every bundle), so what one bundle rendered (the full hook entry at a session's end, after a
 * compaction) serves the next prompt in another (the agent's first stage; `wmem context`), all
 * built from the same sources together. A bundle newer than the stamp (one rebuilt alone), or a
 * module run from src/ (no stamp beside it), signs its own file, as before the stamp.
 */
function codeSignature(): Signature {
  // A CommonJS bundle (every hook's) knows its own file: import.meta.url there is made from it
  // with node:url's URL class, whose first use costs ~2 M instructions on every render recall.
  const file = typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);
  const dir = path.dirname(file);
  const stamp = path.join(path.basename(dir) === 'fast' ? path.dirname(dir) : dir, 'build-stamp');
  const built = statSync(stamp, { throwIfNoEntry: false });
  const own = statSync(file, { throwIfNoEntry: false });
  return built && own && own.mtimeMs <= built.mtimeMs ? `build ${signature(stamp)}` : signature(file);
}

/** A render: the memory part, its digest and its segments' digests (copyOf's, the part whole or cut), and whether the cache changed. */
export interface Rendered {
  text: string;
  digest: string;
  blockDigests?: Record<string, string>;
  dirty: boolean;
}

/**
 * The memory part, recalled whole from the render cache while none of the files it is rendered
 * from changed (each one's identity, as the answer cache takes it, signed before it is read) and
 * the rest of what it was rendered from (the code, the budget, the paths it names, the handoff)
 * is the same: nothing is parsed or rendered then, and the modules that would are not loaded (the
 * prompt hook's first stage leaves them out). When the hot state alone changed (a tool call), put
 * together from the render cache and hot.json (app/context-hot.ts); otherwise rendered, or
 * recalled block by block (app/context-memory.ts). A file that changed within SETTLE_MS of its
 * signature may change again within the same clock tick and keep it: its text, read after the signature, is kept beside
 * them and compared as well (git's "racily clean" files).
 */
async function memoryPart(session: Session, cache: ContextCache, around: { where: MemoryWhere; handoff?: string }, budget: number, env: NodeJS.ProcessEnv): Promise<Rendered & { maintained: boolean; recalled?: boolean }> {
  const code = codeSignature();
  const signed = signMemoryInputs(session);
  // Each file read once here though up to three checks ask for it (the hit's texts, the hot state
  // alone, the texts to keep): a file changed just now (workspace-memory.json after a session's
  // end, ~10 KB) was read twice on a prompt after a tool call. Every read follows the signature.
  const textNow = textsOnce();
  const key = recallKey(code, budget, around, signed);
  const kept = cache.memory;
  const maintained = cache.overview?.digest.maintained;
  // The part's own key names the code that rendered it: a recall record left by this build beside
  // a part another build (an older install on the same session) wrote since is no hit.
  if (kept?.recall?.key === key && kept.key === JSON.stringify([code, budget]) && typeof maintained === 'boolean' && Object.entries(kept.recall.texts ?? {}).every(([file, text]) => textNow(file) === text)) {
    const part = keptPart(kept);
    if (part) return { ...part, dirty: false, maintained };
  }
  const texts = unsettled(signed, Date.now(), settleMs(env)).map((file) => [file, textNow(file)] as const);
  // Not a regular file (a link, a folder), or more text than the cache should carry, that changed
  // just now: not recalled until it stands still.
  const size = texts.reduce((sum, [, text]) => sum + (text?.length ?? 0), 0);
  const recall = size > RECALL_TEXT_MAX || texts.some(([, text]) => text === undefined) ? undefined : { key, ...(texts.length ? { texts: Object.fromEntries(texts) as Record<string, string | null> } : {}) };
  const hot = hotStatePath(session.paths.stateDir);
  const again = hotChangedAlone(kept?.recall, key, signed, hot, textNow) ? (await import('./context-hot.js')).rerenderHot(session.paths.stateDir, cache, code, budget) : undefined;
  const rendered = again ?? (await (await import('./context-memory.js')).renderMemoryPart(session, cache, code, around, budget));
  if (cache.memory && !sameRecall(cache.memory.recall, recall)) {
    if (recall) cache.memory.recall = recall;
    else delete cache.memory.recall;
    // `recalled`: the recall record changed (when nothing else did, the cache's write is its alone).
    return { ...rendered, recalled: true };
  }
  return rendered;
}

/**
 * Whether the part was recalled last from the files as they stand but the hot state (the file a
 * tool call writes): every other file's signature is the same, and so is the text kept of each
 * that had just changed, and so are the code, budget, paths and handoff. The part is then put
 * together again from the render cache and the hot state alone (app/context-hot.ts).
 */
function hotChangedAlone(recall: Recall | undefined, key: string, signed: [string, Signature][], hot: string, textNow: (file: string) => string | null | undefined): boolean {
  if (!recall) return false;
  try {
    const before = JSON.parse(recall.key) as unknown[];
    const sigs = before.at(-1);
    const now = signed.find(([file]) => file === hot);
    if (!now || !Array.isArray(sigs)) return false;
    // The key the part was recalled by, its code, budget, paths and handoff as they were (the
    // session's own compaction drops the handoff and changes no file but the hot state), with the
    // hot state's signature as it is now. (recallKey's array, read back: JSON keeps its order.)
    if (JSON.stringify([...before.slice(0, -1), (sigs as [string, Signature][]).map(([file, sig]) => [file, file === hot ? now[1] : sig])]) !== key) return false;
  } catch {
    return false;
  }
  return Object.entries(recall.texts ?? {}).every(([file, text]) => file === hot || textNow(file) === text);
}

/** What the memory part is recalled by: the code, budget, paths, handoff and, last, the files' signatures (hotChangedAlone reads them back). */
function recallKey(code: Signature, budget: number, around: { where: MemoryWhere; handoff?: string }, signed: [string, Signature][]): string {
  return JSON.stringify([code, budget, around.where, around.handoff ?? null, signed]);
}

/** The most text (UTF-16 units: up to ~192 KB of UTF-8 for CJK) of files changed just now that the render cache keeps to recall the part by (it is read on every prompt). */
const RECALL_TEXT_MAX = 64 * 1024;

type Recall = NonNullable<ContextCache['memory']>['recall'];

/**
 * Whether the cache would be written with the same recall record (what JSON.stringify of each
 * would tell, key order included), without writing either out: it holds the key (~2–3 KB of
 * paths and signatures) and the texts of the files changed just now (hot.json after every tool
 * call, ~1 KB; up to RECALL_TEXT_MAX), twice each on every prompt after a tool call.
 */
export function sameRecall(a: Recall | undefined, b: Recall | undefined): boolean {
  if (!a || !b) return a === b;
  const fields = Object.keys(a);
  if (!sameList(fields, Object.keys(b)) || a.key !== b.key) return false;
  if (!fields.includes('texts')) return true;
  // Other shapes than a record of texts (a file written by hand) are small: compared as JSON.
  if (!isRecord(a.texts) || !isRecord(b.texts)) return JSON.stringify(a.texts) === JSON.stringify(b.texts);
  const [x, y] = [Object.entries(a.texts), Object.entries(b.texts)];
  return x.length === y.length && x.every(([file, text], i) => file === y[i][0] && text === y[i][1]);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((item, i) => item === b[i]);

/** textOf, each file read at most once (the first answer kept). */
function textsOnce(): (file: string) => string | null | undefined {
  const read = new Map<string, string | null | undefined>();
  return (file) => {
    if (!read.has(file)) read.set(file, textOf(file));
    return read.get(file);
  };
}

/** A regular file's text; null when there is none; undefined for anything else (a link, a folder, an unreadable file). */
function textOf(file: string): string | null | undefined {
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (!stat) return null;
  if (!stat.isFile()) return undefined;
  try {
    return readRegularSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

type HistoryRead = Awaited<ReturnType<typeof updateHistoryStats>>;

function historyBytes(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Memory parts up to this size are estimated from their length rather than tokenized. */
const APPROXIMATE_UP_TO = 64 * 1024;

/**
 * The tokenizer's module, imported only when something is counted for real: it is ESM, and the
 * first import() of an ES module starts Node's ESM loader (~10 M instructions) even when the
 * counter is never used, which every prompt of an agent without usage reports (Droid, Kilo) paid.
 */
async function loadTokenCounter(): Promise<(text: string) => number> {
  return (await import('../memory/tokens.js')).loadTokenCounter();
}

/**
 * A tokenizer count of messages.jsonl and an estimate of the memory part (cached under the part's
 * digest and length, not its text: a second copy of the part in the render cache was read by
 * every prompt and written again by every miss; a digest that collides costs only an estimate).
 */
async function estimateTokens(session: Session, cache: ContextCache, history: HistoryRead, memory: string, digest: string): Promise<{ tokens: number; history: HistoryRead; dirty: boolean }> {
  let counter: ((text: string) => number) | undefined;
  let dirty = false;
  if (history.view.tokens === null) {
    // An empty history (an agent that keeps its own transcript) counts 0 without the tokenizer.
    counter = historyBytes(session.paths.messages) > 0 ? await loadTokenCounter() : () => 0;
    history = await updateHistoryStats(session.paths.messages, cache.history, HISTORY_USAGE, counter);
  }
  const kept = cache.memoryTokens;
  let memoryTokens = kept?.digest === digest && kept.length === memory.length && typeof kept.count === 'number' ? kept.count : undefined;
  if (memoryTokens === undefined) {
    // The memory part is small and its share of the estimate modest: four bytes a token (within a
    // few per cent of o200k on Markdown, prose and code) spares the first prompt of every new
    // session the tokenizer's load (~0.4 s). A large one is counted for real.
    if (Buffer.byteLength(memory) <= APPROXIMATE_UP_TO) memoryTokens = Math.ceil(Buffer.byteLength(memory) / 4);
    else {
      counter ??= await loadTokenCounter();
      memoryTokens = counter(memory);
    }
    cache.memoryTokens = { digest, length: memory.length, count: memoryTokens };
    dirty = true;
  }
  return { tokens: (history.view.tokens ?? 0) + memoryTokens, history, dirty };
}

export interface ContextResult {
  session: string;
  part: 'all' | 'memory' | 'meta';
  assembled: AssembledContext;
  /** Where the answer cache of the session is, and every file this answer was computed from (signed before it was read); none: not cacheable. */
  answerCache?: { stateDir: string; inputs: [string, Signature][] };
}

/** wmem is switched off here (WMEM_DISABLED, `wmem off`): nothing is injected. */
export interface ContextOff {
  off: string;
}

/** `wmem context`: the parts asked for, of the session the environment names. */
export async function context(options: ContextOptions, env: AppEnv): Promise<ContextResult | ContextOff> {
  if (disabledByEnv(env.env)) return { off: 'WMEM_DISABLED is set: nothing injected' };
  const part = options.part ?? 'all';
  let session: Session;
  try {
    session = await resolveSession(env);
  } catch (err) {
    // `wmem off` works before the project has a session: its flag still silences this.
    const flag = await projectOff(env.home, env.cwd).catch(() => undefined);
    if (flag) return offHere(flag);
    throw err;
  }
  if (isOffAt(session.project.dir)) return offHere(offFile(session.project.dir));
  const inputs = signContextInputs(session);
  const assembled = await assembleContext(session, env, { ...options, wantMeta: part !== 'memory' });
  // A transcript the listing did not name (a hook state rewritten meanwhile) or the other sessions' files: not cached.
  const listed = !assembled.fromSiblings && (!assembled.transcript || inputs.some(([file]) => file === assembled.transcript));
  return { session: session.id, part, assembled, ...(listed ? { answerCache: { stateDir: session.paths.stateDir, inputs } } : {}) };
}

function offHere(flag: string): ContextOff {
  return { off: `switched off for this project (${flag}): nothing injected; 'wmem on' turns it back on` };
}
