// Gathers a session's report: the context in use over time from its transcript (the agent's own,
// as the hooks recorded it, read with that agent's usage rules, else wmem's history: the archives
// in order, then messages.jsonl, read with every registered agent's rules), its compactions
// (linked to what they archived), notes and decisions (scratch.md and the scratch archives), open
// errors (hot state), the overview, and folder sizes. Reads only; files are read a line at a time
// and only lines that can carry usage are parsed, so a long session stays fast.
import { promises as fs, lstatSync } from 'node:fs';
import path from 'node:path';
import { readMeta, type Session } from '../store/session.js';
import { readTextIfExists } from '../store/fsx.js';
import { MAX_STATE_BYTES, POINTER_FLAGS, readRegularSync } from '../store/regular-file.js';
import { readLines } from '../history/stream/index.js';
import { anyOf, PLAIN_USAGE, type UsageLines } from '../history/model/usage.js';
import { readHotStateSync } from '../store/hot-state.js';
import { parseScratch } from '../memory/scratch.js';
import { hookStateFile } from '../store/hook-state.js';
import { AGENTS, agentByMetaName, DEFAULT_AGENT, findAgent } from '../agents/registry.js';
import type { AgentAdapter } from '../agents/adapter.js';
import { emptySeries, addLine, type Series } from './series.js';
import type { ReportEvent } from './html.js';

async function addFile(series: Series, file: string, seen: Set<string>, rules: UsageLines): Promise<void> {
  // Bytes that every line carrying usage or a compaction holds (a cheap test before JSON.parse).
  const marks = rules.marks.map((m) => Buffer.from(m));
  for await (const line of readLines(file)) {
    if (!marks.some((b) => line.bytes.includes(b))) continue;
    try {
      addLine(series, JSON.parse(line.bytes.toString('utf8')), seen, rules);
    } catch {
      /* not JSON: no usage */
    }
  }
}

/** Every registered agent's rules, then wmem's plain history's: for files whose agent is not known. */
export async function everyAgentsUsage(): Promise<UsageLines> {
  const rules = await Promise.all(AGENTS.map((a) => a.usageLines?.()));
  return anyOf([...rules.filter((r): r is UsageLines => r !== undefined), PLAIN_USAGE]);
}

async function listNames(dir: string, pattern: RegExp): Promise<string[]> {
  return (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => pattern.test(n)).sort();
}

/**
 * The transcript `agent`'s hooks last read (the file wmem keeps for one that has none), if still
 * there. The hook state is derived state, read with its bound and rules as the hooks read it (never
 * through a link, only the user's own): one over the bound is not read (`warn` says so) and the
 * report falls back to wmem's history.
 */
async function transcriptOf(session: Session, agent: AgentAdapter, warn?: (message: string) => void): Promise<string | undefined> {
  try {
    const state = JSON.parse(readRegularSync(hookStateFile(session.paths.stateDir, agent.id), 'utf8', MAX_STATE_BYTES, POINTER_FLAGS, true)) as { transcript?: { path?: unknown } };
    const file = typeof state.transcript?.path === 'string' ? state.transcript.path : undefined;
    return file && lstatSync(file).isFile() ? file : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EFBIG') warn?.(`${(err as Error).message}; the report reads wmem's history instead`);
    return undefined;
  }
}

/** The agent's transcript and its rules: Claude Code's hooks first (as `wmem context`), else the agent meta.json names. */
async function agentTranscript(session: Session, warn?: (message: string) => void): Promise<{ file: string; rules: UsageLines } | undefined> {
  const meta = await readMeta(session.paths).catch(() => undefined);
  const named = agentByMetaName(typeof meta?.agent === 'string' ? meta.agent : undefined);
  // A Claude Code session names its own agent: its hook state read once.
  for (const agent of [findAgent(DEFAULT_AGENT), named?.id === DEFAULT_AGENT ? undefined : named]) {
    const file = agent && (await transcriptOf(session, agent, warn));
    if (!agent || !file) continue;
    return { file, rules: (await agent.usageLines?.()) ?? (await everyAgentsUsage()) };
  }
  return undefined;
}

const stampTime = (name: string) => {
  const m = /(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)(\d{3})Z/.exec(name);
  return m ? `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${m[7]}Z` : undefined;
};

/**
 * The series of the session, with each compaction linked (relative to `base`) to what it archived.
 * `warn`: told of a hook state too large to read.
 */
export async function loadSeries(session: Session, base: string, warn?: (message: string) => void): Promise<{ series: Series; source: string }> {
  const series = emptySeries();
  const seen = new Set<string>();
  const rel = (file: string) => path.relative(base, file).split(path.sep).join('/');
  const archives = await listNames(session.paths.archiveDir, /^messages-.*\.jsonl$/);
  const details = await listNames(session.paths.detailDir, /-conversation(?:-\d+)?\.md$/);
  const detailFor = (name: string) => details.find((d) => d.startsWith(name.replace(/^messages-/, '').replace(/\.jsonl$/, '')));
  const agent = await agentTranscript(session, warn);
  if (agent) {
    const transcript = agent.file;
    await addFile(series, transcript, seen, agent.rules);
    // The hooks archived the transcript before each compaction the agent made, in order.
    const hooked = await listNames(session.paths.archiveDir, /^transcript-.*\.jsonl$/);
    const transcriptDetails = await listNames(session.paths.detailDir, /-transcript(?:-\d+)?\.md$/);
    series.compactions.forEach((c, i) => {
      if (!hooked[i]) return;
      c.archive = rel(path.join(session.paths.archiveDir, hooked[i]));
      const detail = transcriptDetails.find((d) => d.startsWith(hooked[i].replace(/^transcript-/, '').replace(/\.jsonl$/, '')));
      if (detail) c.detail = rel(path.join(session.paths.detailDir, detail));
    });
    return { series, source: transcript };
  }
  const rules = await everyAgentsUsage();
  for (const name of archives) {
    await addFile(series, path.join(session.paths.archiveDir, name), seen, rules);
    const detail = detailFor(name);
    const last = series.points[series.points.length - 1];
    series.compactions.push({
      n: series.points.length,
      time: stampTime(name),
      ...(last ? { before: last.tokens } : {}),
      archive: rel(path.join(session.paths.archiveDir, name)),
      ...(detail ? { detail: rel(path.join(session.paths.detailDir, detail)) } : {}),
    });
  }
  try {
    await addFile(series, session.paths.messages, seen, rules);
  } catch {
    /* no history yet */
  }
  return { series, source: session.paths.messages };
}

/** Notes and decisions (scratch.md and its archives), open errors, and the compactions, in time order. */
export async function loadEvents(session: Session, series: Series, base: string): Promise<ReportEvent[]> {
  const events: ReportEvent[] = [];
  const rel = (file: string) => path.relative(base, file).split(path.sep).join('/');
  const scratchFiles = [...(await listNames(session.paths.archiveDir, /^scratch-.*\.md$/)).map((n) => path.join(session.paths.archiveDir, n)), session.paths.scratch];
  for (const file of scratchFiles) {
    for (const note of parseScratch((await readTextIfExists(file)) ?? '').notes) {
      const decision = note.importance >= 0.8 || note.tags.includes('decisions');
      events.push({ time: note.time, kind: decision ? 'decision' : 'note', text: note.text, href: rel(file) });
    }
  }
  for (const error of readHotStateSync(session.paths.stateDir).errors) {
    events.push({ time: error.first, kind: 'error', text: `${error.category}: ${error.summary}${error.count > 1 ? ` (×${error.count}, last ${error.last})` : ''}` });
  }
  series.compactions.forEach((c, i) => {
    const what = c.before ? `${c.before.toLocaleString('en-US')} tokens in use before` : 'compacted';
    events.push({ time: c.time, kind: 'compaction', text: `Compaction ${i + 1}: ${what}${c.after ? `, ${c.after.toLocaleString('en-US')} after` : ''}${c.archive ? `; archived to ${c.archive}` : ''}`, href: c.detail ?? c.archive });
  });
  // Time order; events without a time keep their place at the end, in the order found.
  return events.map((e, i) => ({ e, i })).sort((a, b) => (a.e.time ?? '\uffff').localeCompare(b.e.time ?? '\uffff') || a.i - b.i).map(({ e }) => e);
}

/** Files and bytes under each of the session's folders (links not followed; report.html left out). */
export async function loadSizes(session: Session): Promise<{ name: string; bytes: number; files: number }[]> {
  const measure = async (dir: string, recurse: boolean) => {
    let bytes = 0;
    let files = 0;
    for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, entry.name);
      // The report itself is not part of what it measures (two runs give the same bytes).
      if (entry.isFile() && !(dir === session.paths.dir && entry.name === 'report.html')) {
        bytes += lstatSync(full).size;
        files++;
      } else if (recurse && entry.isDirectory()) {
        const inner = await measure(full, true);
        bytes += inner.bytes;
        files += inner.files;
      }
    }
    return { bytes, files };
  };
  const rows = [
    { name: 'session (messages.jsonl, meta.json)', ...(await measure(session.paths.dir, false)) },
    { name: 'working-memory', ...(await measure(session.paths.workingMemory, false)) },
    { name: 'working-memory/detail', ...(await measure(session.paths.detailDir, true)) },
    { name: 'working-memory/archive', ...(await measure(session.paths.archiveDir, true)) },
    { name: 'state', ...(await measure(session.paths.stateDir, true)) },
  ];
  return rows;
}
