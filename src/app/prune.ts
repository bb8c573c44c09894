// `wmem prune`: filters a tool output by pressure mode. The full text goes to
// <project>/cache/tool-outputs/ and a pointer line says where; short outputs pass unchanged.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { assertNoLinkBetween, atomicWrite } from '../store/fsx.js';
import { fileStamp } from '../store/paths.js';
import { locateProject } from '../store/project.js';
import { resolveSession, type Session } from '../store/session.js';
import { pointerLine, pruneOutput, type PruneMode } from '../history/model/prune.js';
import { WmemError } from '../ui/errors.js';
import type { AppEnv } from './env.js';

export interface PruneOptions {
  mode?: 'auto' | PruneMode;
  /** The tool output. */
  input: string;
}

export interface PruneResult {
  mode: PruneMode;
  pressure?: string;
  kind: string;
  totalLines: number;
  keptLines: number;
  errorLines: number;
  pruned: boolean;
  /** Where the full output was kept (pruned only). */
  file?: string;
  /** What goes on to the agent: the input as is, or the pruned text and its pointer line. */
  text: string;
}

const BY_PRESSURE: Record<string, PruneMode> = { safe: 'normal', moderate: 'aggressive', high: 'hyper' };

async function sessionOrNone(env: AppEnv): Promise<Session | undefined> {
  try {
    return await resolveSession(env);
  } catch (err) {
    if (err instanceof WmemError && err.exitCode === 2 && /no session|unknown session/.test(err.message)) return undefined;
    throw err;
  }
}

/** auto: the session's pressure (safe → normal, moderate → aggressive, high → hyper); normal without a session. */
async function resolveMode(requested: PruneOptions['mode'], session: Session | undefined, env: AppEnv): Promise<{ mode: PruneMode; pressure?: string }> {
  if (requested && requested !== 'auto') return { mode: requested };
  if (!session) return { mode: 'normal' };
  const { assembleContext } = await import('./context.js');
  const { meta } = await assembleContext(session, env, { wantMeta: true });
  return { mode: BY_PRESSURE[meta.pressure] ?? 'normal', pressure: meta.pressure };
}

export async function prune(options: PruneOptions, env: AppEnv): Promise<PruneResult> {
  const input = options.input;
  const session = await sessionOrNone(env);
  const { mode, pressure } = await resolveMode(options.mode, session, env);
  const result = pruneOutput(input, mode);
  const base = { mode, ...(pressure ? { pressure } : {}), kind: result.kind, totalLines: result.totalLines, keptLines: result.keptLines, errorLines: result.errorLines };
  if (!result.pruned) return { ...base, pruned: false, text: input };
  const projectDir = session?.project.dir ?? (await locateProject(env.home, env.cwd, { create: true, now: env.now() }))!.dir;
  const digest = createHash('sha256').update(input).digest('hex').slice(0, 12);
  const file = path.join(projectDir, 'cache', 'tool-outputs', `${fileStamp(env.now())}-${digest}.txt`);
  assertNoLinkBetween(projectDir, file); // a linked cache/ or tool-outputs/ would take the output elsewhere
  await atomicWrite(file, input);
  return { ...base, pruned: true, file, text: `${result.text}\n${pointerLine(result, file)}\n` };
}
