// Consolidation's I/O (docs/compaction.md): read overview.md, scratch.md and the detail files new since the
// last consolidation; merge deterministically or through an LLM command past the guards; then
// write in the order that loses nothing at any crash point: the scratch archive (and the previous
// overview, for an LLM's rewrite) first, then detail files for pushed-out lines, then the new
// overview, and only then scratch.md minus exactly the consumed lines. The LLM runs with no lock
// held; notes appended meanwhile stay in scratch.md for the next consolidation.
import { statSync } from 'node:fs';
import path from 'node:path';
import { atomicWrite, readTextIfExists, withLock } from '../../store/fsx.js';
import { detailIndexLine, writeDetail } from '../../store/detail.js';
import { fileStamp } from '../../store/paths.js';
import { readMeta, writeMeta, type Session } from '../../store/session.js';
import { readTemplate } from '../../store/templates.js';
import { ioError, refusedError, usageError } from '../../ui/errors.js';
import { parseScratch, type Note } from '../../memory/scratch.js';
import { addIndexLines, appendSynthesis, checkSynthesis, fillPrompt, normalizeCandidate, removeLines } from '../../memory/consolidate.js';
import { interruptibly, type Interruptible } from './interrupt.js';
import { commitPass, discardPass, streamScratch } from './stream.js';
import { budgetForTokensMax } from '../../render/context.js';
import { lastConsolidated, newDetailFiles, type NewDetail } from './pending.js';

export interface ConsolidateOptions {
  /** A shell command that reads the prompt on stdin and prints the new overview. */
  llm?: string;
  timeoutMs?: number;
  dryRun?: boolean;
}

export interface ConsolidateEnv {
  now(): Date;
  warn(message: string): void;
}

export interface ConsolidateResult {
  session: string;
  mode: 'deterministic' | 'llm';
  dryRun: boolean;
  /** Notes taken out of scratch.md (or that would be, on a dry run). */
  consumed: number;
  /** Notes appended while an LLM ran: left in scratch.md. */
  leftInScratch: number;
  /** scratch.md lines that are not notes: kept where they are. */
  unparsed: { line: number; raw: string }[];
  placed: Record<string, number>;
  folded: number;
  pointers: string[];
  details: string[];
  archive?: string;
  /** The previous overview, kept when an LLM rewrote it. */
  previousOverview?: string;
  /** True when a MEMORY.md seed's text was kept and the notes appended below it. */
  appendedBelowSeed: boolean;
  /** The new overview.md, on a dry run. */
  overview?: string;
  nothingToDo: boolean;
}

interface Snapshot {
  overview: string;
  scratch: string;
  notes: Note[];
  unparsed: { line: number; raw: string }[];
  newDetails: NewDetail[];
  appendOnly: boolean;
  tokensMax: number;
}

/** What the streamed consolidation needs besides scratch.md (which it reads itself). */
async function snapshotWithoutScratch(session: Session): Promise<{ overview: string; newDetails: Snapshot['newDetails']; appendOnly: boolean }> {
  const overview = await readTextIfExists(session.paths.overview);
  if (overview === undefined) throw usageError(`${session.paths.overview} is missing`, "run 'wmem init' to recreate it from the template");
  const meta = await readMeta(session.paths);
  const since = lastConsolidated(meta);
  const appendOnly = Boolean(meta?.seededFrom) && meta?.seedConsolidated !== true;
  return { overview, newDetails: await newDetailFiles(session, overview, since, false), appendOnly };
}

async function snapshot(session: Session, withBodies: boolean): Promise<Snapshot> {
  const overview = await readTextIfExists(session.paths.overview);
  if (overview === undefined) throw usageError(`${session.paths.overview} is missing`, "run 'wmem init' to recreate it from the template");
  const scratch = (await readTextIfExists(session.paths.scratch)) ?? '';
  const { notes, unparsed } = parseScratch(scratch);
  const meta = await readMeta(session.paths);
  const since = lastConsolidated(meta);
  const appendOnly = Boolean(meta?.seededFrom) && meta?.seedConsolidated !== true;
  return { overview, scratch, notes, unparsed, newDetails: await newDetailFiles(session, overview, since, withBodies), appendOnly, tokensMax: meta?.tokensMax ?? 200_000 };
}

async function uniqueArchive(session: Session, stem: string): Promise<string> {
  for (let n = 1; ; n++) {
    const name = `${stem}${n === 1 ? '' : `-${n}`}.md`;
    const full = path.join(session.paths.archiveDir, name);
    try {
      statSync(full);
    } catch {
      return full;
    }
  }
}

async function archiveNotes(session: Session, notes: Note[], now: Date): Promise<string | undefined> {
  if (!notes.length) return undefined;
  const file = await uniqueArchive(session, `scratch-${fileStamp(now)}`);
  const header = `<!-- wmem scratch archive v1: notes consolidated into overview.md at ${now.toISOString()} -->`;
  await atomicWrite(file, [header, ...notes.map((n) => n.raw)].join('\n') + '\n');
  return file;
}

async function markConsolidated(session: Session, now: Date, seeded: boolean): Promise<void> {
  const meta = await readMeta(session.paths);
  if (!meta) return;
  await writeMeta(session.paths, { ...meta, lastConsolidatedAt: now.toISOString(), ...(seeded ? { seedConsolidated: true } : {}), updatedAt: now.toISOString() });
}

/** scratch.md minus the consumed notes, re-read now (notes appended meanwhile stay). */
async function dropConsumed(session: Session, consumed: Note[]): Promise<number> {
  const current = (await readTextIfExists(session.paths.scratch)) ?? '';
  const next = removeLines(current, consumed.map((n) => n.raw));
  if (next !== current) await atomicWrite(session.paths.scratch, next);
  return parseScratch(next).notes.length;
}

function warnUnparsed(env: ConsolidateEnv, file: string, unparsed: Snapshot['unparsed']): void {
  for (const u of unparsed.slice(0, 5)) env.warn(`${file}:${u.line} is not a note; kept in scratch.md as it is: ${u.raw.slice(0, 80)}`);
  if (unparsed.length > 5) env.warn(`${file}: ${unparsed.length - 5} more lines that are not notes, kept as they are`);
}

function baseResult(session: Session, mode: ConsolidateResult['mode'], dryRun: boolean, unparsed: Snapshot['unparsed'], notes = 0): ConsolidateResult {
  return {
    session: session.id,
    mode,
    dryRun,
    consumed: 0,
    leftInScratch: notes,
    unparsed,
    placed: {},
    folded: 0,
    pointers: [],
    details: [],
    appendedBelowSeed: false,
    nothingToDo: false,
  };
}

async function deterministic(session: Session, dryRun: boolean, env: ConsolidateEnv): Promise<ConsolidateResult> {
  const run = (guard: Interruptible) => async (): Promise<ConsolidateResult> => {
    const snap = await snapshotWithoutScratch(session);
    const now = env.now();
    const pass = await streamScratch(session, snap, { write: !dryRun, now, guard });
    warnUnparsed(env, session.paths.scratch, pass.unparsed);
    const result: ConsolidateResult = { ...baseResult(session, 'deterministic', dryRun, pass.unparsed), leftInScratch: pass.notes };
    const { plan } = pass;
    if (!pass.notes && !snap.newDetails.length) {
      if (pass.files) await discardPass(pass.files);
      return { ...result, nothingToDo: true };
    }
    Object.assign(result, { placed: plan.placed, folded: plan.folded, pointers: plan.evictions.map((e) => e.pointer), consumed: pass.notes, appendedBelowSeed: snap.appendOnly });
    if (dryRun) return { ...result, overview: plan.text };
    guard.beginCommits();
    const done = await commitPass(session, pass, now, (index) => atomicWrite(session.paths.overview, plan.withIndex(index)));
    Object.assign(result, { archive: done.archive, details: done.details, leftInScratch: done.leftInScratch });
    await markConsolidated(session, now, snap.appendOnly);
    return result;
  };
  return interruptibly('the consolidation', (guard) => (dryRun ? run(guard)() : withLock(session.paths.dir, run(guard), { retryOnLostLock: 2, warn: env.warn })));
}

interface LlmOutput {
  stdout: string;
}

/** Runs the LLM command in its own process group, so a timeout ends it and everything it started. */
async function runLlm(command: string, prompt: string, timeoutMs: number): Promise<LlmOutput> {
  const { execa } = await import('execa');
  const child = execa(command, { shell: true, input: prompt, reject: false, detached: true, stripFinalNewline: false, maxBuffer: 16 * 1024 * 1024 });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }, timeoutMs);
  let result;
  try {
    result = await child;
  } finally {
    clearTimeout(timer);
  }
  if (timedOut) throw ioError(`the LLM command timed out after ${Math.round(timeoutMs / 1000)} s: nothing changed`, undefined, 'raise --timeout, or use a faster command');
  if (result.failed || result.exitCode !== 0) {
    const why = String(result.stderr ?? '').trim().split('\n').filter(Boolean).at(-1) ?? result.shortMessage ?? 'no message';
    throw ioError(`the LLM command failed (exit ${result.exitCode ?? 'none'}): ${why.slice(0, 200)}; nothing changed`, undefined, 'run the command by hand to see what is wrong');
  }
  return { stdout: String(result.stdout ?? '') };
}

async function withLlm(session: Session, options: Required<Pick<ConsolidateOptions, 'llm'>> & ConsolidateOptions, env: ConsolidateEnv): Promise<ConsolidateResult> {
  // 1. Read under the lock, then let go: the LLM may take minutes.
  const snap = await withLock(session.paths.dir, () => snapshot(session, true));
  warnUnparsed(env, session.paths.scratch, snap.unparsed);
  const dryRun = Boolean(options.dryRun);
  const result = baseResult(session, 'llm', dryRun, snap.unparsed, snap.notes.length);
  if (!snap.notes.length && !snap.newDetails.length) return { ...result, nothingToDo: true };
  const budget = budgetForTokensMax(snap.tokensMax);
  const detailText = snap.newDetails.map((d) => `### ${d.rel} — ${d.title}\n${d.body.slice(0, 1500)}${d.body.length > 1500 ? '\n[…]' : ''}`).join('\n\n');
  const prompt = fillPrompt(readTemplate('consolidate-prompt.md'), {
    overview: snap.overview.trim(),
    notes: snap.notes.map((n) => n.raw).join('\n') || '(none)',
    details: detailText.slice(0, 12_000) || '(none)',
    budget: String(budget),
  });
  // 2. Run it with no lock held.
  const { stdout } = await runLlm(options.llm, prompt, options.timeoutMs ?? 300_000);
  const candidate = normalizeCandidate(stdout, snap.overview);
  const refusal = checkSynthesis({ candidate, previous: snap.overview, budget, file: session.paths.overview });
  if (refusal) throw refusedError(`refused by the ${refusal.guard} guard: ${refusal.reason}; nothing changed`, 'check the LLM command\'s output with --dry-run, or consolidate without --llm');
  let next = snap.appendOnly ? appendSynthesis(snap.overview, candidate, session.paths.overview) : candidate;
  next = addIndexLines(next, snap.newDetails.map((d) => detailIndexLine(d.rel, d.title)), session.paths.overview);
  Object.assign(result, { consumed: snap.notes.length, appendedBelowSeed: snap.appendOnly });
  if (dryRun) return { ...result, overview: next };
  // 3. Re-lock, check nothing moved under us, write in the safe order.
  return withLock(session.paths.dir, async () => {
    const overviewNow = await readTextIfExists(session.paths.overview);
    if (overviewNow !== snap.overview) {
      throw refusedError('refused by the concurrent-edit guard: overview.md changed while the LLM ran; nothing changed', 'run wmem consolidate again');
    }
    const now = env.now();
    result.archive = await archiveNotes(session, snap.notes, now);
    const keep = await uniqueArchive(session, `overview-${fileStamp(now)}`);
    await atomicWrite(keep, snap.overview);
    result.previousOverview = keep;
    // Index lines the synthesis dropped come back: overview.md must index what is in detail/.
    const indexed = snap.overview.split('\n').filter((l) => /^\s*[-*]\s+detail\/\S+/.test(l));
    await atomicWrite(session.paths.overview, addIndexLines(next, indexed, session.paths.overview));
    result.leftInScratch = await dropConsumed(session, snap.notes);
    await markConsolidated(session, now, snap.appendOnly);
    return result;
  });
}

/**
 * Folds the session's scratch notes into overview.md. Deterministic without `llm` (fast enough
 * for a SessionEnd hook); with `llm`, the command's output replaces the overview only past the
 * guards (a refusal throws a WmemError with exit code 3 and changes nothing).
 */
export async function consolidateSession(session: Session, options: ConsolidateOptions, env: ConsolidateEnv): Promise<ConsolidateResult> {
  if (options.llm !== undefined) {
    if (!options.llm.trim()) throw usageError('--llm needs a command', 'e.g. --llm "claude -p"');
    return withLlm(session, { ...options, llm: options.llm }, env);
  }
  return deterministic(session, Boolean(options.dryRun), env);
}
