// `wmem prune`: filters a tool output from stdin to stdout by pressure mode. The full text goes
// to <project>/cache/tool-outputs/ and a pointer line says where; short outputs pass unchanged.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { atomicWrite } from '../store/fsx.js';
import { fileStamp } from '../store/paths.js';
import { locateProject } from '../store/project.js';
import { resolveSession, type Session } from '../store/session.js';
import { pointerLine, pruneOutput, type PruneMode } from '../history/prune.js';
import { WmemError } from '../ui/errors.js';
import { readStdin, type CommandResult, type RunContext } from '../ui/run.js';

export interface PruneOptions {
  mode?: 'auto' | PruneMode;
}

const BY_PRESSURE: Record<string, PruneMode> = { safe: 'normal', moderate: 'aggressive', high: 'hyper' };

async function sessionOrNone(ctx: RunContext): Promise<Session | undefined> {
  try {
    return await resolveSession(ctx);
  } catch (err) {
    if (err instanceof WmemError && err.exitCode === 2 && /no session|unknown session/.test(err.message)) return undefined;
    throw err;
  }
}

/** auto: the session's pressure (safe → normal, moderate → aggressive, high → hyper); normal without a session. */
async function resolveMode(requested: PruneOptions['mode'], session: Session | undefined, ctx: RunContext): Promise<{ mode: PruneMode; pressure?: string }> {
  if (requested && requested !== 'auto') return { mode: requested };
  if (!session) return { mode: 'normal' };
  const { assembleContext } = await import('./context.js');
  const { meta } = await assembleContext(session, ctx, { wantMeta: true });
  return { mode: BY_PRESSURE[meta.pressure] ?? 'normal', pressure: meta.pressure };
}

export async function run(options: PruneOptions, ctx: RunContext): Promise<CommandResult> {
  const input = await readStdin(ctx.stdin);
  const session = await sessionOrNone(ctx);
  const { mode, pressure } = await resolveMode(options.mode, session, ctx);
  const result = pruneOutput(input, mode);
  const base = { mode, ...(pressure ? { pressure } : {}), kind: result.kind, totalLines: result.totalLines, keptLines: result.keptLines, errorLines: result.errorLines };
  if (!result.pruned) return { data: { ...base, pruned: false, text: input }, text: input, raw: true };

  const projectDir = session?.project.dir ?? (await locateProject(ctx.home, ctx.cwd, { create: true, now: ctx.now() }))!.dir;
  const digest = createHash('sha256').update(input).digest('hex').slice(0, 12);
  const file = path.join(projectDir, 'cache', 'tool-outputs', `${fileStamp(ctx.now())}-${digest}.txt`);
  await atomicWrite(file, input);
  const text = `${result.text}\n${pointerLine(result, file)}\n`;
  return { data: { ...base, pruned: true, file, text }, text, raw: true };
}
