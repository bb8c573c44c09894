// `wmem search QUERY [--limit N] [--all-sessions]`: ranked hits with file, line and snippet
// across the session's memory files and the project's workspace memory.
import { listSessionIds, resolveSession } from '../store/session.js';
import { usageError } from '../ui/errors.js';
import type { CommandResult, RunContext } from '../ui/run.js';

export interface SearchCommandOptions {
  limit?: number;
  allSessions?: boolean;
}

export async function run(options: SearchCommandOptions, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const query = ((args[0] as string[]) ?? []).map((w) => (w.startsWith('\u2060') ? w.slice(1) : w)).join(' ').trim();
  if (!query) throw usageError('the query is empty', 'e.g. wmem search "how do we deploy"');
  const session = await resolveSession(ctx);
  const sessions = options.allSessions ? await listSessionIds(session.project.dir) : [session.id];
  const { searchMemory } = await import('../store/search-corpus.js');
  const result = await searchMemory({ projectDir: session.project.dir, sessions }, query, { limit: options.limit ?? 10 });
  const data = { query, session: session.id, allSessions: Boolean(options.allSessions), filesSearched: result.files, linesSearched: result.lines, hits: result.hits };
  if (!result.hits.length) return { data, text: ctx.quiet ? '' : `no match for ${JSON.stringify(query)} in ${result.files} files` };
  const lines: string[] = [];
  for (const hit of result.hits) {
    const where = `${options.allSessions && hit.session ? `${hit.session}/` : ''}${hit.file}:${hit.line}`;
    lines.push(`${ctx.style.cyan(where)}  ${hit.snippet}`);
    for (const r of hit.resolved ?? []) lines.push(`    ${ctx.style.dim(`↳ ${r.file}:${r.line}`)}  ${r.snippet}`);
    if (hit.alsoIn?.length) lines.push(`    ${ctx.style.dim(`= also ${hit.alsoIn.map((a) => `${a.file}:${a.line}`).join(', ')}`)}`);
  }
  return { data, text: lines.join('\n') };
}
