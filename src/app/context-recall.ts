// The memory part rendered from its inputs, or recalled from the render cache whole or block by
// block: plain data in and out, no file read. Used by the full render (app/context-memory.ts, which
// reads every file first) and by a prompt after a tool call that changed the hot state alone
// (app/context.ts memoryPart), which takes every other block's inputs back from the cache's keys
// (they are those inputs, as JSON) and so loads neither the files' parsers nor context-memory.cjs.
import type { ContextCache, KeptBlock } from '../store/context-cache.js';
import { MEMORY_BLOCKS, RELATIVE_WHERE, blockInputs, cutMemory, joinedBlocks, keptPart, partsOf, recutMemory, recutSessionState, renderBlock, type MemoryInputs, type MemoryWhere, type OverviewDigest, type PartsOf } from '../render/context.js';
import { copyOf, digestOf, knownDigests, type KnownDigests } from '../render/memory-resend.js';
import { sessionStateText } from '../memory/session-state.js';
import type { Signature } from '../store/answers.js';
import type { Rendered } from './context.js';

/**
 * What the session state block is rendered from (sessionStateText, pure), and kept under in
 * place of its text: the hot state as rendered (a tool call that leaves it as it looked is no
 * change) and the digest of scratch.md's end as stored (`tail`, digestOf), so a prompt whose notes
 * are unchanged does not parse them again to find the recent decisions (`decisions`, asked for
 * only when the block is rendered). A digest, not the end itself: the end is up to ~12 KB, which
 * every prompt would read back in the render cache and a prompt after a tool call write again.
 */
export interface SessionStateSources {
  hot: string;
  tail: string;
  decisions: () => string[];
}

const stateKey = (code: Signature, base: MemoryInputs, state: Omit<SessionStateSources, 'decisions'>) => JSON.stringify([code, ['sources', base.where, state.hot, state.tail]]);

/** Every block's key: the session state's from its sources, any other's `known` one (keptInputs checked it) or made from its inputs. */
const keysOf = (code: Signature, base: MemoryInputs, state: Omit<SessionStateSources, 'decisions'>, known?: Record<string, string>) =>
  MEMORY_BLOCKS.map((block) => (block === 'session_state' ? stateKey(code, base, state) : (known?.[block] ?? JSON.stringify([code, blockInputs(base, block)]))));

/**
 * The memory part from the render cache when renderMemory would be given exactly what it was
 * given last time, by the same code (`code`, app/context.ts codeSignature):
 * the key is those inputs whole, compared as text, so no change to them can hit. Rendering (notes
 * parsed, tags neutralized, the budget's cuts) and the digest a hook compares are then skipped.
 * Each block is kept too, under its own inputs (blockInputs; the session state's, its sources):
 * a tool call changes the session state alone, and the next prompt renders and digests that block alone,
 * unless the part no longer fits its budget whole (then it is rendered whole, cuts and all).
 * `known`: the other blocks' keys as keptInputs checked them against `base` (not made again).
 * One copy of the part is written: its blocks' texts when it fits (the part is their join), else
 * the cut text with each block's length only (enough to tell when it fits again). The session
 * state's block keeps the recent decisions it was rendered with, for keptInputs.
 */
export function renderOrRecall(cache: ContextCache, code: Signature, base: MemoryInputs, state: SessionStateSources, budget: number, known?: Record<string, string>): Rendered {
  const keys = keysOf(code, base, state, known);
  // The whole part's own key is the budget and the code; every block's must match as well.
  const key = JSON.stringify([code, budget]);
  const kept = cache.memory;
  const same = kept?.key === key && MEMORY_BLOCKS.every((block, i) => kept.blocks?.[block]?.key === keys[i]);
  const recalled = same ? keptRendered(kept) : undefined;
  if (recalled) return recalled;
  // The session state's text, rendered only now that a block or the part is.
  let decisions: string[] | undefined;
  let full: MemoryInputs | undefined;
  const inputs = () => (full ??= { ...base, sessionState: sessionStateText(state.hot, (decisions ??= state.decisions())) });
  // Each block's parts made once: a changed block's, measured whole below, serve the cut as well.
  let parts: PartsOf | undefined;
  const partsNow = () => (parts ??= partsOf(inputs()));
  const blocks = MEMORY_BLOCKS.map((block, i): KeptBlock => {
    const old = kept?.blocks?.[block];
    if (old?.key === keys[i] && lengthOf(old) !== undefined) return old;
    const text = renderBlock(inputs(), block, partsNow());
    return { key: keys[i], length: text.length, text, ...(block === 'session_state' ? { decisions } : {}) };
  });
  if (fitsWhole(blocks, budget)) return keepWhole(cache, key, blocks, (i) => renderBlock(inputs(), MEMORY_BLOCKS[i], partsNow()));
  // Cut: rendered from the inputs (a cut weighs every block against the others); the blocks keep
  // their lengths and, but the session state's, what the cut saw of their parts (recutState).
  const { text, records } = cutMemory(inputs(), budget, partsNow());
  const cutOf = (block: string) => (records && block !== 'session_state' ? { cut: records[block as keyof typeof records] } : {});
  const copy = copyOf(text, knownOf(kept?.key === key ? kept : undefined));
  cache.memory = { key, text, digest: copy.digest, segments: copy.blocks, blocks: Object.fromEntries(MEMORY_BLOCKS.map((block, i) => [block, { ...withDecisions(blocks[i]), key: blocks[i].key, length: lengthOf(blocks[i]), ...cutOf(block) }])) };
  return { text, digest: copy.digest, blockDigests: copy.blocks, dirty: true };
}

/**
 * The digests the kept part holds, each with the text it is of (copyOf's `known`): a cut part's
 * segments, or the blocks kept whole. A segment of the new part whose text is the same is not
 * digested again (the working memory block, ~5,000 characters, when a tool call or a note changed another).
 */
function knownOf(kept: ContextCache['memory']): KnownDigests | undefined {
  if (typeof kept?.text !== 'string') return kept?.blocks;
  const segments = kept.segments;
  return segments && typeof segments === 'object' ? knownDigests(kept.text, segments) : undefined;
}

/** Whether the blocks (their lengths) fit the budget whole, joined. */
function fitsWhole(blocks: KeptBlock[], budget: number): boolean {
  const lengths = blocks.map((b) => lengthOf(b)!).filter((n) => n > 0);
  return lengths.reduce((a, b) => a + b, 0) + Math.max(0, lengths.length - 1) <= budget;
}

/** The part as its blocks joined (in MEMORY_BLOCKS' order), kept with each block's text and digest, the part's text not; `render` gives a block kept without its text. */
function keepWhole(cache: ContextCache, key: string, blocks: KeptBlock[], render: (i: number) => string): Rendered {
  const whole = blocks.map((b, i): KeptBlock => {
    // A block kept whole as it was read stays that very object: the render cache's write then
    // splices its bytes as read (store/context-cache.ts Head) rather than serializing it again.
    if (typeof b.text === 'string' && typeof b.digest === 'string' && b.length === b.text.length) return b;
    const text = typeof b.text === 'string' ? b.text : render(i);
    return { ...withDecisions(b), key: b.key, length: text.length, text, digest: typeof b.digest === 'string' && typeof b.text === 'string' ? b.digest : text ? digestOf(text) : '' };
  });
  const keptBlocks = Object.fromEntries(MEMORY_BLOCKS.map((block, i) => [block, whole[i]]));
  const joined = joinedBlocks(keptBlocks)!;
  cache.memory = { key, digest: copyOf(joined.text, keptBlocks).digest, blocks: keptBlocks };
  return { text: joined.text, digest: cache.memory.digest, blockDigests: joined.digests, dirty: true };
}

/** A kept block's recent decisions, as a field to spread (the session state's only). */
const withDecisions = (block: KeptBlock) => (block.decisions ? { decisions: block.decisions } : {});

/** A kept block's length: recorded, or (a cache written before lengths were) its text's. */
function lengthOf(block: KeptBlock): number | undefined {
  return typeof block.length === 'number' ? block.length : typeof block.text === 'string' ? block.text.length : undefined;
}

/**
 * The kept part as it is, when the session state block was rendered by this code and budget from
 * the hot state `hot` renders as now (its key holds that text): what renderOrRecall would recall
 * from keptInputs' keys, without taking the other blocks' inputs back. The caller has checked
 * that every other file is as the part was last recalled for (app/context.ts hotChangedAlone).
 */
export function keptAsIs(cache: ContextCache, code: Signature, budget: number, hot: string): (Rendered & { maintained: boolean }) | undefined {
  const kept = cache.memory;
  const sources = keptStateSources(cache, code, budget);
  if (!kept || !sources || sources.hot !== hot) return undefined;
  const recalled = keptRendered(kept);
  return recalled && { ...recalled, maintained: sources.maintained };
}

/** What the kept session state block was rendered from (its key), when the kept part is this code's at this budget. */
function keptStateSources(cache: ContextCache, code: Signature, budget: number): { where: unknown; hot: string; tail: unknown; maintained: boolean } | undefined {
  const maintained = cache.overview?.digest.maintained;
  if (cache.memory?.key !== JSON.stringify([code, budget]) || typeof maintained !== 'boolean') return undefined;
  try {
    const [keyCode, [, where, hot, tail]] = JSON.parse(cache.memory.blocks?.session_state?.key ?? 'null') as [unknown, unknown[]];
    return keyCode === code && typeof hot === 'string' ? { where, hot, tail, maintained } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The kept part with its session state block rendered from the hot state `hot` (its text now) and
 * the recent decisions it was rendered with, as renderOrRecall would give it, without taking the
 * other blocks' inputs back from their keys (most of a re-render's young allocation): the caller
 * has checked, as for keptAsIs, that every other file is as the part was last recalled for, so
 * every other block's key is the kept one. A part kept whole that still fits: its blocks joined,
 * the new one among them. A cut part: recutCut, when it can tell that renderMemory would cut every
 * other block as it did (the block's lines keep their lengths, or the cut chosen again from the
 * other parts' records keeps theirs). Undefined otherwise (renderOrRecall then, from keptInputs).
 */
export function recutState(cache: ContextCache, code: Signature, budget: number, hot: string): (Rendered & { maintained: boolean }) | undefined {
  const kept = cache.memory;
  const block = kept?.blocks?.session_state;
  const sources = keptStateSources(cache, code, budget);
  if (!kept?.blocks || !block || !Array.isArray(block.decisions) || typeof block.length !== 'number' || !sources || typeof sources.tail !== 'string') return undefined;
  const after = sessionStateText(hot, block.decisions);
  const key = stateKey(code, { where: sources.where } as MemoryInputs, { hot, tail: sources.tail });
  if (typeof kept.text !== 'string') {
    const blocks = MEMORY_BLOCKS.map((name) => kept.blocks![name]);
    if (!blocks.every((b) => typeof b?.text === 'string' && typeof b.digest === 'string')) return undefined;
    // The session state's block alone rendered (it reads nothing but its text), as renderOrRecall renders a block whose key changed.
    const text = renderBlock({ sessionState: after } as MemoryInputs, 'session_state');
    const fresh = blocks.map((b, i): KeptBlock => (MEMORY_BLOCKS[i] === 'session_state' ? { key, length: text.length, text, decisions: block.decisions } : b));
    return fitsWhole(fresh, budget) ? { ...keepWhole(cache, kept.key, fresh, () => text), maintained: sources.maintained } : undefined;
  }
  const recut = recutCut({ text: kept.text, blocks: kept.blocks }, sessionStateText(sources.hot, block.decisions), after, block.length, budget, sources.where);
  if (recut === undefined) return undefined;
  // As renderOrRecall's cut writes it: the session state's key from its sources now, and its whole block's length.
  const state = { ...withDecisions(block), key, length: recut.length ?? block.length };
  // Every other block's text is the kept cut's: its digest is the kept one (copyOf compares the texts).
  const copy = copyOf(recut.text, knownOf(kept));
  cache.memory = { key: kept.key, text: recut.text, digest: copy.digest, segments: copy.blocks, blocks: { ...kept.blocks, session_state: state } };
  return { text: recut.text, digest: copy.digest, blockDigests: copy.blocks, dirty: true, maintained: sources.maintained };
}

/**
 * The kept cut part with the session state `after` (it was `before`): recutSessionState when the
 * block's lines keep their lengths (the cut is the same), else recutMemory from the other blocks'
 * records of the cut, with the block's whole length now (`length`; `was` before). Undefined when
 * neither can tell, or the part now fits whole (renderMemory would give its blocks whole, not kept here).
 */
function recutCut(kept: { text: string; blocks: Record<string, KeptBlock> }, before: string | undefined, after: string | undefined, was: number, budget: number, where: unknown): { text: string; length?: number } | undefined {
  const same = recutSessionState(kept.text, before, after);
  if (same !== undefined) return { text: same };
  // The key's (renderMemory's `where`: the relative names when its inputs named none).
  const w = (where ?? RELATIVE_WHERE) as MemoryWhere;
  if (typeof w.overview !== 'string' || typeof w.scratch !== 'string') return undefined;
  const length = renderBlock({ sessionState: after } as MemoryInputs, 'session_state').length;
  // Tried only where it mostly answers (a guess; the recut itself is exact either way): a block
  // grown by more than the room the cut left unused cannot leave every other part's cut as it
  // was, and a line added or gone moved the cut in the bench's worlds (Qwen's new error: refused,
  // +39 faults for the try; bench/README.md prompt17). A line that changed length: tried.
  if (length - was > budget - kept.text.length || lineCount(before) !== lineCount(after)) return undefined;
  const lengths = MEMORY_BLOCKS.map((name) => (name === 'session_state' ? length : lengthOf(kept.blocks[name] ?? { key: '' })));
  if (!lengths.every((n): n is number => typeof n === 'number') || fitsWhole(lengths.map((n) => ({ key: '', length: n })), budget)) return undefined;
  const text = recutQuietly(() => recutMemory(kept.text, Object.fromEntries(MEMORY_BLOCKS.map((name) => [name, kept.blocks[name]?.cut])), after, budget, w));
  return text === undefined ? undefined : { text, length };
}

/** The recut, or undefined when it throws: it reads records from a file, and the full render answers whatever they hold. */
function recutQuietly(recut: () => string | undefined): string | undefined {
  try {
    return recut();
  } catch {
    return undefined;
  }
}

const lineCount = (text: string | undefined) => (text ? text.split('\n').length : 0);

/** The kept part as a render (render/context.ts keptPart): undefined when the cache holds neither its cut text nor its blocks whole. */
function keptRendered(kept: ContextCache['memory']): Rendered | undefined {
  const part = keptPart(kept);
  return part && { ...part, dirty: false };
}

/**
 * What the kept part was rendered from, but the hot state: every other block's inputs taken back
 * from its key (the JSON of blockInputs), the session state's digest of scratch.md's end and
 * recent decisions from its block, and the keys so checked (`known`, for renderOrRecall);
 * undefined when the cache holds no such record (an older cache, a key this code did not write)
 * or the keys do not give themselves back exactly.
 */
export function keptInputs(cache: ContextCache, code: Signature): { base: MemoryInputs; tail: string; decisions: string[]; known: Record<string, string> } | undefined {
  const blocks = cache.memory?.blocks;
  const state = blocks?.session_state;
  if (!blocks || !state || !Array.isArray(state.decisions)) return undefined;
  try {
    const inputsOf = (block: string) => {
      const [keyCode, inputs] = JSON.parse(blocks[block]?.key ?? 'null') as [unknown, unknown[]];
      if (keyCode !== code || !Array.isArray(inputs)) throw new Error('not this code');
      return inputs;
    };
    const orUndefined = <T>(value: T | null) => (value === null ? undefined : value);
    const [, where, hot, tail] = inputsOf('session_state');
    const [, overview] = inputsOf('working_memory');
    const [, handoff] = inputsOf('previous_session');
    const [, workspace, workspacePinned] = inputsOf('workspace_memory');
    const [, scratchLines] = inputsOf('scratch_notes');
    if (typeof hot !== 'string' || typeof tail !== 'string') return undefined;
    const base = { overview: overview as OverviewDigest, scratchLines: scratchLines as string[], workspace: orUndefined(workspace as string | null), workspacePinned: orUndefined(workspacePinned as string[] | null), handoff: orUndefined(handoff as string | null), where: orUndefined(where as MemoryInputs['where'] | null) };
    // Exactly what was rendered, or nothing: each block's key made again from them is the kept one.
    const keys = keysOf(code, base, { hot, tail });
    const same = MEMORY_BLOCKS.every((block, i) => keys[i] === blocks[block].key);
    return same ? { base, tail, decisions: state.decisions, known: Object.fromEntries(MEMORY_BLOCKS.map((block, i) => [block, keys[i]])) } : undefined;
  } catch {
    return undefined;
  }
}
