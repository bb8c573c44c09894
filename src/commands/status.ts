// `wmem status`: the session's sizes, token use, pressure, and whether the overview is maintained.
import { promises as fs } from 'node:fs';
import { resolveSession } from '../store/session.js';
import { assembleContext } from './context.js';
import { journalPath } from '../history/journal.js';
import type { CommandResult, RunContext } from '../ui/run.js';

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

export async function run(options: { tokensUsed?: number; tokensMax?: number }, ctx: RunContext): Promise<CommandResult> {
  const session = await resolveSession(ctx);
  const { meta, memory, agent, transcript, warnings } = await assembleContext(session, ctx, { tokensUsed: options.tokensUsed, tokensMax: options.tokensMax, wantMeta: true });
  for (const warning of warnings) ctx.warn(`note: ${warning}`);
  const { parseScratch } = await import('../memory/scratch.js');
  const scratch = parseScratch(await fs.readFile(session.paths.scratch, 'utf8').catch(() => ''));
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
  };
  const s = ctx.style;
  const pressureColor = meta.pressure === 'safe' ? s.green : meta.pressure === 'moderate' ? s.yellow : s.red;
  const lines = [
    `${s.bold('session')}     ${session.id}${session.source === 'current' ? '' : ` (from ${session.source === 'flag' ? '--session' : 'WMEM_SESSION'})`}`,
    `${s.bold('project')}     ${session.project.cwd}`,
    `${s.bold('folder')}      ${session.paths.dir}`,
    `${s.bold('tokens')}      ${meta.tokens_used} / ${meta.tokens_max} (${meta.tokens_percent}%): used from ${meta.tokens_source}, window from ${meta.tokens_max_source}${meta.model ? ` (${meta.model})` : ''}`,
    `${s.bold('pressure')}    ${pressureColor(meta.pressure)}; hint: ${meta.action_hint}`,
    transcript
      ? `${s.bold('messages')}    kept by ${agent ?? 'the agent'} in ${transcript}`
      : `${s.bold('messages')}    ${meta.messages_in_history} in history (${data.files.messagesBytes} bytes)`,
    `${s.bold('overview')}    ${data.files.overviewBytes} bytes, ${meta.overview_maintained ? 'maintained' : s.yellow('still the bare template')}`,
    `${s.bold('scratch')}     ${scratch.notes.length} notes waiting for consolidation${scratch.unparsed.length ? `, ${scratch.unparsed.length} lines that are not notes (kept)` : ''}`,
    `${s.bold('detail')}      ${data.files.detailFiles} files; archive: ${data.files.archiveFiles} files`,
    `${s.bold('injected')}    ${memory.length} characters of memory`,
  ];
  if (data.compactionPending) lines.push(`${s.bold('compaction')}  ${s.yellow('not finished')} (its transcript or overview lines); wmem compact --finish, or the next compact or restore, finishes it`);
  return { data, text: lines.join('\n') };
}
