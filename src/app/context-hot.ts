// The memory part again after a tool call that changed the hot state alone (app/context.ts
// memoryPart tells so from the files' signatures): hot.json read and rendered, every other
// block's inputs taken back from the render cache (app/context-recall.ts keptInputs), the part
// rendered or recalled from them as the full render would (renderOrRecall, the same function),
// so the bytes are the same. Imported dynamically: the other agents' prompt stages and the session
// starts load it from a bundle of its own beside them (dist/fast/context-hot.cjs), far smaller
// than context-memory.cjs, which reads and parses every file; Claude Code's prompt stage, which
// has a V8 code cache, holds it (its compiled functions come from the cache: build-first-hook.mjs).
import type { ContextCache } from '../store/context-cache.js';
import { readHotStateSync } from '../store/hot-state.js';
import { renderHotState } from '../memory/hot-state.js';
import type { Signature } from '../store/answers.js';
import type { Rendered } from './context.js';
import { keptAsIs, keptInputs, recutState, renderOrRecall } from './context-recall.js';

/** The part rendered with the hot state now in `stateDir`; undefined when the cache cannot say what the rest was rendered from. */
export function rerenderHot(stateDir: string, cache: ContextCache, code: Signature, budget: number): (Rendered & { maintained: boolean }) | undefined {
  const hot = renderHotState(readHotStateSync(stateDir));
  // The hot state renders as the kept part's did (an `ls`, a command that clears nothing): the
  // part is the kept one, which was recalled for every other file as it still is, so the other
  // blocks' inputs are not taken back from their keys (~85 KB of young allocation on this path).
  // Else, when the part is cut and the others keep their cut (the block's lines keep their
  // lengths, or the cut chosen again from the others' records keeps theirs), the kept cut with the
  // block alone rendered again (recutState): no other block's parts made.
  const same = keptAsIs(cache, code, budget, hot) ?? recutState(cache, code, budget, hot);
  if (same) return same;
  const kept = keptInputs(cache, code);
  if (!kept) return undefined;
  const state = { hot, tail: kept.tail, decisions: () => kept.decisions };
  try {
    return { ...renderOrRecall(cache, code, kept.base, state, budget, kept.known), maintained: kept.base.overview.maintained };
  } catch {
    // Inputs the keys gave back that the renderer cannot take (a cache written by hand): the full
    // render reads the files instead (renderOrRecall changes the cache only once it has the part).
    return undefined;
  }
}
