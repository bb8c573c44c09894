// Pure: what every adapter's tool moment shares on its way to a `wmem track` event: project paths
// made relative, and a failure's error, output and exit code.
import { isAbsolute, relative } from 'node:path';
import type { ToolEvent } from '../memory/hot-state.js';
import type { HookInput } from './adapter.js';

/** A path inside the project, relative to it (shorter, and the same on every machine); others as given. */
export function within(file: string, root: string | undefined): string {
  if (!root || !isAbsolute(file)) return file;
  const rel = relative(root, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/**
 * The outcome on `event`: a failure's error is the agent's message, else the output, else
 * `fallback`, and its exit code 1 when none is known; a success keeps an exit code only when the
 * agent gave one (none known: hot state then opens and clears nothing).
 */
export function withOutcome(event: ToolEvent, input: HookInput, output: string | undefined, fallback: string): ToolEvent {
  const tool = input.tool ?? {};
  if (input.moment === 'tool-failed') {
    event.error = tool.error ?? output ?? fallback;
    event.output = output ?? event.error;
    event.exit_code = tool.exitCode ?? 1;
  } else if (tool.exitCode !== undefined) {
    event.exit_code = tool.exitCode;
  }
  return event;
}
