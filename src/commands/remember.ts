// `wmem remember TEXT --type T [--source S]`, `wmem forget ID`, `wmem memories`: the project's
// workspace memory (src/app/remember.ts and forget.ts do the work; refusals exit 2).
import { forget } from '../app/forget.js';
import { listMemories, remember } from '../app/remember.js';
import { renderForget, renderRemember } from '../views/memory.js';
import type { CommandResult, RunContext } from './run.js';
import { usageError } from '../ui/errors.js';
import { textFromArgs } from './note.js';

export interface RememberOptions {
  type?: string;
  source?: string;
}

export async function run(options: RememberOptions, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const { WORKSPACE_TYPES } = await import('../memory/workspace.js');
  if (!options.type || !(WORKSPACE_TYPES as readonly string[]).includes(options.type)) {
    throw usageError(`unknown --type ${JSON.stringify(options.type ?? '')}`, `use one of ${WORKSPACE_TYPES.join(', ')}`);
  }
  const text = await textFromArgs(args[0] as string[], ctx, 'the text to remember');
  const result = await remember({ text, type: options.type, source: options.source }, ctx);
  return { data: result, text: ctx.quiet ? '' : renderRemember(result) };
}

export async function runForget(_options: unknown, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const result = await forget({ id: String(args[0] ?? '') }, ctx);
  const { teamOnly: _teamOnly, teamFile: _teamFile, ...data } = result;
  return { data, text: ctx.quiet ? '' : renderForget(result) };
}

export async function runList(options: { team?: boolean }, ctx: RunContext): Promise<CommandResult> {
  const { rendered: _rendered, ...data } = await listMemories({ team: options.team }, ctx);
  if (!data.entries.length) return { data, text: 'no workspace memory yet (add with: wmem remember TEXT --type project)' };
  const shown = new Set(data.shown);
  const listed = options.team ? data.entries : data.entries.filter((e) => shown.has(e.id));
  const notes = data.superseded.map((e) => `${e.id}: the team's copy is newer than yours and is the one shown; the next wmem share refreshes yours`);
  const footer = `${data.shown.length}/${data.limits.entries} entries injected, ${data.chars}/${data.limits.chars} characters${data.notShown ? `; ${data.notShown} more not injected${options.team ? '' : ' (all: wmem memories --team)'}` : ''}`;
  const { renderMemoryList } = await import('../views/memory.js');
  return { data, text: [renderMemoryList(listed, ctx.style), ...notes.map((n) => ctx.style.dim(n)), ctx.style.dim(footer)].join('\n') };
}
