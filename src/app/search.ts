// Use case `search`: ranked hits with file, line and snippet across the session's memory files
// (overview, scratch, detail, archive), the project's workspace memory and the repository's team file.
import { listSessionIds, resolveSession } from '../store/session.js';
import { usageError } from '../ui/errors.js';
import type { AppEnv } from './env.js';

export interface SearchOptions {
  query: string;
  limit?: number;
  allSessions?: boolean;
  /**
   * Starts a background run that indexes a session's files (`wmem compact --finish`): called when
   * a large file was scanned because building its index now would have cost more than the scan.
   */
  indexLater?: (sessionId: string) => Promise<unknown> | void;
  /** Called once before the ranking walks many candidate lines of indexes (the store's SearchOptions.heavy). */
  heavy?: () => void;
}

/** `env.now` is the reading time: a team entry dated after it counts as the oldest copy. */
export async function searchSession(options: SearchOptions, env: AppEnv) {
  const query = options.query.trim();
  if (!query) throw usageError('the query is empty', 'e.g. wmem search "how do we deploy"');
  const session = await resolveSession(env);
  const sessions = options.allSessions ? await listSessionIds(session.project.dir) : [session.id];
  const { searchMemory } = await import('../store/search-corpus.js');
  const { findRepoRootSync, teamFilePath } = await import('../store/team.js');
  const root = findRepoRootSync(session.project.cwd);
  const scope = { projectDir: session.project.dir, sessions, teamFile: root ? teamFilePath(root) : undefined, nowMs: env.now().getTime() };
  const result = await searchMemory(scope, query, { limit: options.limit ?? 10, heavy: options.heavy });
  for (const id of result.unindexed) await options.indexLater?.(id);
  // What was searched, not what was sent: an answer never carries a query of any length back.
  const { boundedQuery } = await import('../memory/search.js');
  return { query: boundedQuery(query), queryChars: query.length, session: session.id, allSessions: Boolean(options.allSessions), filesSearched: result.files, linesSearched: result.lines, hits: result.hits };
}

export type SearchResult = Awaited<ReturnType<typeof searchSession>>;
