// The memory part rendered, or recalled block by block from the render cache: what a prompt loads
// only when the files it is rendered from changed since the part was last rendered or recalled
// (app/context.ts recalls it whole, from their signatures alone, otherwise). Imported dynamically
// for that reason: the prompt hook's first stage loads it from a bundle of its own beside it
// (dist/fast/context-memory.cjs, src/entries/build-first-hook.mjs) only then. Plain data in and out.
import type { Session } from '../store/session.js';
import type { ContextCache } from '../store/context-cache.js';
import { loadOverviewDigest, loadScratchLines } from '../store/memory-files.js';
import { readInjectables } from '../store/injectables.js';
import { renderWorkspace } from '../memory/injected.js';
import { renderHotState } from '../memory/hot-state.js';
import { recentDecisions } from '../memory/scratch.js';
import type { MemoryInputs, MemoryWhere } from '../render/context.js';
import type { Signature } from '../store/answers.js';
import type { Rendered } from './context.js';
import { renderOrRecall } from './context-recall.js';
import { digestOf } from '../render/memory-resend.js';

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
  const state = { hot: renderHotState(injectables.hotState), tail: digestOf(injectables.scratchTail), decisions: () => recentDecisions(injectables.scratchTail) };
  const rendered = renderOrRecall(cache, code, base, state, budget);
  return { ...rendered, dirty: rendered.dirty || overview.dirty, maintained: overview.digest.maintained };
}
