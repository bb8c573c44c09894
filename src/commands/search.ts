// `wmem search QUERY [--limit N] [--all-sessions]`: src/app/search.ts ranks the hits; this prints
// them one a line with file and line.
import { searchSession } from '../app/search.js';
import { finishInBackground } from '../app/finish-background.js';
import { renderSearch } from '../views/memory.js';
import type { CommandResult, RunContext } from './run.js';

export interface SearchCommandOptions {
  limit?: number;
  allSessions?: boolean;
  /** Called once before a search walks many candidate lines (the search entry tunes V8 then). */
  heavy?: () => void;
}

export async function run(options: SearchCommandOptions, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const query = ((args[0] as string[]) ?? []).map((w) => (w.startsWith('\u2060') ? w.slice(1) : w)).join(' ');
  // A large file scanned for want of an index gets one from a background run.
  const indexLater = (id: string) => void finishInBackground(process.argv[1], ctx, id);
  const data = await searchSession({ query, limit: options.limit, allSessions: options.allSessions, indexLater, heavy: options.heavy }, ctx);
  if (!data.hits.length && ctx.quiet) return { data, text: '' };
  return { data, text: renderSearch(data, ctx.style) };
}
