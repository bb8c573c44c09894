// Use case `status`: the session's sizes, token use (used, window, pressure, the hint), and
// whether the overview is maintained.
import { promises as fs } from 'node:fs';
import { resolveSession } from '../store/session.js';
import { readTextIfExists } from '../store/fsx.js';
import type { AppEnv } from './env.js';
import { assembleContext } from './context.js';
import { journalPath } from '../history/compaction/journal.js';
import { readSwitches } from './switch.js';

export interface StatusOptions {
  tokensUsed?: number;
  tokensMax?: number;
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await fs.stat(file)).size;
  } catch {
    return 0;
  }
}

async function countFiles(dir: string): Promise<number> {
  try {
    return (await fs.readdir(dir)).filter((n) => !n.startsWith('.')).length;
  } catch {
    return 0;
  }
}

export async function sessionStatus(options: StatusOptions, env: AppEnv) {
  const session = await resolveSession(env);
  const switches = await readSwitches({ ...env, cwd: session.project.cwd });
  const { meta, memory, agent, transcript, warnings } = await assembleContext(session, env, { tokensUsed: options.tokensUsed, tokensMax: options.tokensMax, wantMeta: true });
  const { parseScratch } = await import('../memory/scratch.js');
  const scratch = parseScratch((await readTextIfExists(session.paths.scratch)) ?? '');
  const data = {
    session: session.id,
    cwd: session.project.cwd,
    path: session.paths.dir,
    files: {
      overviewBytes: await sizeOf(session.paths.overview),
      scratchBytes: await sizeOf(session.paths.scratch),
      messagesBytes: await sizeOf(session.paths.messages),
      detailFiles: await countFiles(session.paths.detailDir),
      archiveFiles: await countFiles(session.paths.archiveDir),
    },
    notes: scratch.notes.length,
    unparsedScratchLines: scratch.unparsed.length,
    memoryChars: memory.length,
    ...(agent ? { agent } : {}),
    ...(transcript ? { transcript } : {}),
    // A compaction's journal outlives it only while its finishing is pending (or it was killed).
    compactionPending: await fs
      .stat(journalPath(session))
      .then(() => true)
      .catch(() => false),
    ...meta,
    // Hooks and `wmem context` do nothing while wmem is switched off here (WMEM_DISABLED, `wmem off`).
    ...(switches.line ? { switchedOff: switches.line } : {}),
  };
  return { data, source: session.source, warnings };
}

export type StatusResult = Awaited<ReturnType<typeof sessionStatus>>;
