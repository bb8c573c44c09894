// The memory part rendered, or recalled block by block from the render cache: what a prompt loads
// only when the files it is rendered from changed since the part was last rendered or recalled
// (app/context.ts recalls it whole, from their signatures alone, otherwise). Imported dynamically
// for that reason: the prompt hook's first stage loads it from a bundle of its own beside it
// (dist/fast/context-memory.cjs, src/entries/build-first-hook.mjs) only then. Plain data in and out.
import type { Session } from '../store/session.js';
import type { ContextCache, KeptBlock } from '../store/context-cache.js';
import { loadOverviewDigest, loadScratchLines } from '../store/memory-files.js';
import { readInjectables } from '../store/injectables.js';
import { renderSessionState, renderWorkspace, type InjectableInputs } from '../memory/injected.js';
import { renderHotState } from '../memory/hot-state.js';
import { MEMORY_BLOCKS, blockInputs, joinedBlocks, renderBlock, renderMemory, type MemoryInputs, type MemoryWhere } from '../render/context.js';
import { digestOf } from '../render/memory-resend.js';
import type { Signature } from '../store/answers.js';
import type { Rendered } from './context.js';

/**
 * The memory part of `session` within `budget`, read from its files and rendered (or recalled
 * block by block), by the code `code`; and whether the overview says the session is maintained.
 * `dirty`: the render cache changed (the caller writes it).
 */
export async function renderMemoryPart(session: Session, cache: ContextCache, code: Signature, around: { where: MemoryWhere; handoff?: string }, budget: number): Promise<Rendered & { maintained: boolean }> {
  const overview = await loadOverviewDigest(session.paths.overview, cache);
  const scratchLines = await loadScratchLines(session.paths.scratch);
  const injectables = readInjectables(session, scratchLines);
  const base: MemoryInputs = { overview: overview.digest, scratchLines, ...renderWorkspace(injectables.workspace), handoff: around.handoff, where: around.where };
  const rendered = renderOrRecall(cache, code, base, sessionStateSources(injectables), budget);
  return { ...rendered, dirty: rendered.dirty || overview.dirty, maintained: overview.digest.maintained };
}

/**
 * The memory part from the render cache when renderMemory would be given exactly what it was
 * given last time, by the same code (`code`, app/context.ts codeSignature):
 * the key is those inputs whole, compared as text, so no change to them can hit. Rendering (notes
 * parsed, tags neutralized, the budget's cuts) and the digest a hook compares are then skipped.
 * Each block is kept too, under its own inputs (blockInputs; the session state's, its sources):
 * a tool call changes the session state alone, and the next prompt renders and digests that block alone,
 * unless the part no longer fits its budget whole (then it is rendered whole, cuts and all).
 * One copy of the part is written: its blocks' texts when it fits (the part is their join), else
 * the cut text with each block's length only (enough to tell when it fits again).
 */
function renderOrRecall(cache: ContextCache, code: Signature, base: MemoryInputs, state: SessionStateSources, budget: number): Rendered {
  const keys = MEMORY_BLOCKS.map((block) => JSON.stringify([code, block === 'session_state' ? ['sources', base.where, state.hot, state.scratchTail] : blockInputs(base, block)]));
  // The whole part's own key is the budget and the code; every block's must match as well.
  const key = JSON.stringify([code, budget]);
  const kept = cache.memory;
  const same = kept?.key === key && MEMORY_BLOCKS.every((block, i) => kept.blocks?.[block]?.key === keys[i]);
  if (same && typeof kept.digest === 'string') {
    if (typeof kept.text === 'string') return { text: kept.text, digest: kept.digest, dirty: false };
    const joined = joinedBlocks(kept.blocks!);
    if (joined) return { text: joined.text, digest: kept.digest, blockDigests: joined.digests, dirty: false };
  }
  // The session state's text, rendered only now that a block or the part is.
  let full: MemoryInputs | undefined;
  const inputs = () => (full ??= { ...base, sessionState: renderSessionState(state.hot, state.scratchTail) });
  const blocks = MEMORY_BLOCKS.map((block, i): KeptBlock => {
    const old = kept?.blocks?.[block];
    if (old?.key === keys[i] && lengthOf(old) !== undefined) return old;
    const text = renderBlock(inputs(), block);
    return { key: keys[i], length: text.length, text };
  });
  const lengths = blocks.map((b) => lengthOf(b)!).filter((n) => n > 0);
  const fits = lengths.reduce((a, b) => a + b, 0) + Math.max(0, lengths.length - 1) <= budget;
  if (fits) {
    // The part is its blocks joined: each block's text and digest kept, the part's text not.
    const whole = blocks.map((b, i): KeptBlock => {
      const text = typeof b.text === 'string' ? b.text : renderBlock(inputs(), MEMORY_BLOCKS[i]);
      return { key: b.key, length: text.length, text, digest: typeof b.digest === 'string' && typeof b.text === 'string' ? b.digest : text ? digestOf(text) : '' };
    });
    const keptBlocks = Object.fromEntries(MEMORY_BLOCKS.map((block, i) => [block, whole[i]]));
    const joined = joinedBlocks(keptBlocks)!;
    cache.memory = { key, digest: digestOf(joined.text), blocks: keptBlocks };
    return { text: joined.text, digest: cache.memory.digest, blockDigests: joined.digests, dirty: true };
  }
  // Cut: rendered from the inputs (a cut weighs every block against the others); the blocks keep their lengths only.
  const text = renderMemory(inputs(), budget);
  cache.memory = { key, text, digest: digestOf(text), blocks: Object.fromEntries(MEMORY_BLOCKS.map((block, i) => [block, { key: blocks[i].key, length: lengthOf(blocks[i]) }])) };
  return { text, digest: cache.memory.digest, dirty: true };
}

/**
 * What the session state block is rendered from (renderSessionState, pure), and kept under in
 * place of its text (blockInputs): the hot state as rendered (a tool call that leaves it as it
 * looked is no change) and scratch.md's end as stored, so a prompt whose notes are unchanged
 * does not parse them again to find the recent decisions.
 */
interface SessionStateSources {
  hot: string;
  scratchTail: string;
}

function sessionStateSources(injectables: InjectableInputs): SessionStateSources {
  return { hot: renderHotState(injectables.hotState), scratchTail: injectables.scratchTail };
}

/** A kept block's length: recorded, or (a cache written before lengths were) its text's. */
function lengthOf(block: KeptBlock): number | undefined {
  return typeof block.length === 'number' ? block.length : typeof block.text === 'string' ? block.text.length : undefined;
}


