// `wmem restore ARCHIVE`: puts what a compaction archived back into messages.jsonl.
import { resolveSession } from '../store/session.js';
import { restoreArchive } from '../history/compaction/restore.js';
import type { AppEnv } from './env.js';

export type RestoreResult = Awaited<ReturnType<typeof restoreArchive>>;

export async function restore(options: { archive: string }, env: AppEnv): Promise<RestoreResult> {
  const session = await resolveSession(env);
  return restoreArchive(session, options.archive, { now: env.now, warn: env.warn ?? (() => {}) });
}
