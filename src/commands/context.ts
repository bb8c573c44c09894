// `wmem context`: renders what is injected (the use case is src/app/context.ts). The memory part
// is stable (system prompt); the meta part is volatile (end of the messages).
import { context, type ContextOptions as UseCaseOptions } from '../app/context.js';
import type { CommandResult, RunContext } from './run.js';

// The MCP helper's status use case and older callers reach the assembly through here.
export { assembleContext, type AssembledContext, type AssembleOptions, type Surroundings } from '../app/context.js';

export interface ContextOptions extends UseCaseOptions {
  format?: 'text' | 'json' | 'claude';
  event?: string;
}

/** Claude Code caps additional context at 10,000 characters. */
export const CLAUDE_CONTEXT_CAP = 10_000;
/** Room left for the meta part (under 1,000 characters) within the cap. */
export const CLAUDE_MEMORY_BUDGET = CLAUDE_CONTEXT_CAP - 1_000;

export async function run(options: ContextOptions, ctx: RunContext): Promise<CommandResult> {
  const format = options.format ?? 'text';
  // Claude Code drops additional context past its cap: fit by whole sections, never by slicing.
  const budget = format === 'claude' ? Math.min(options.budget ?? Infinity, CLAUDE_MEMORY_BUDGET) : options.budget;
  let result = await context({ ...options, budget: Number.isFinite(budget) ? budget : undefined }, ctx);
  if ('off' in result) {
    // Switched off: nothing on stdout for the harness to inject (the JSON form says why).
    ctx.warn(`wmem: ${result.off}`);
    return format === 'json' || ctx.json ? { data: result, text: JSON.stringify(result) } : { data: result, text: '' };
  }
  if (format === 'claude' && result.part === 'all' && result.assembled.memory.length + 1 + result.assembled.metaText.length > CLAUDE_CONTEXT_CAP) {
    // The meta part (its paths are as long as the home's) took more than the room left for it: the memory gives way, as in the hooks.
    const again = await context({ ...options, budget: Math.max(200, CLAUDE_CONTEXT_CAP - result.assembled.metaText.length - 1) }, ctx);
    if (!('off' in again)) result = again;
  }
  const { session, part, assembled, answerCache } = result;
  for (const warning of assembled.warnings) ctx.warn(`note: ${warning}`);
  const pieces = [part !== 'meta' ? assembled.memory : '', part !== 'memory' ? assembled.metaText : ''].filter(Boolean);
  const text = pieces.join('\n');
  const data = {
    session,
    ...(part !== 'meta' ? { memory: assembled.memory } : {}),
    ...(part !== 'memory' ? { meta: assembled.meta, metaText: assembled.metaText } : {}),
  };
  if (format === 'json' || ctx.json) return { data, text: JSON.stringify(data), answerCache };
  if (format === 'claude') {
    const hook = {
      hookSpecificOutput: { hookEventName: options.event ?? (part === 'memory' ? 'SessionStart' : 'UserPromptSubmit'), additionalContext: text },
    };
    return { data: hook, text: JSON.stringify(hook), answerCache };
  }
  return { data, text, answerCache };
}
