// Use case `search`: ranked hits with file, line and snippet across the session's memory files
// (overview, scratch, detail, archive) and the project's workspace memory.
import { listSessionIds, resolveSession, type Where } from '../store/session.js';
import { usageError } from '../ui/errors.js';

export interface SearchOptions {
  where: Where;
  query: string;
  limit?: number;
  allSessions?: boolean;
}

export async function searchSession(options: SearchOptions) {
  const query = options.query.trim();
  if (!query) throw usageError('the query is empty', 'e.g. wmem search "how do we deploy"');
  const session = await resolveSession(options.where);
  const sessions = options.allSessions ? await listSessionIds(session.project.dir) : [session.id];
  const { searchMemory } = await import('../store/search-corpus.js');
  const result = await searchMemory({ projectDir: session.project.dir, sessions }, query, { limit: options.limit ?? 10 });
  return { query, session: session.id, allSessions: Boolean(options.allSessions), filesSearched: result.files, linesSearched: result.lines, hits: result.hits };
}

export type SearchResult = Awaited<ReturnType<typeof searchSession>>;
