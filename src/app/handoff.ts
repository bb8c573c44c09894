// Continuity across sessions (docs/context.md, "The handoff"): what a new session of a project is
// given of the previous one. Either a frozen handoff block (the default) or, with `--continue` or
// the `continue` setting, an overview that starts from the previous one's. Runs once, when the
// session is created: the block is frozen in its meta.json, which every prompt reads anyway.
import { readCandidate, sessionsByActivity, type CandidateFiles } from '../store/handoff.js';
import { listSessionIds } from '../store/session.js';
import { readHandoffSettings } from '../store/settings.js';
import type { ProjectRef } from '../store/project.js';
import { hasContent, renderHandoff, type HandoffSource } from '../memory/handoff.js';
import { parseScratch } from '../memory/scratch.js';
import { redactSecrets } from '../memory/gate.js';
import { usageError } from '../ui/errors.js';
import { readWorkspaceSync } from '../store/workspace.js';
import { canonical } from '../memory/workspace.js';

/** How many of the most recently active sessions are read before giving up on finding content. */
const CANDIDATES_READ = 20;
/** The block's tags take room in the budget too: `<previous_session>\n…\n</previous_session>`. */
const TAG_OVERHEAD = '<previous_session>\n\n</previous_session>'.length;

type Sections = Record<'task' | 'progress' | 'decisions' | 'context' | 'open' | 'recent', string>;

async function sectionsOf(files: CandidateFiles): Promise<Sections | undefined> {
  const { parseOverview } = await import('../memory/overview.js');
  let overview;
  try {
    overview = parseOverview(files.overview, files.overviewPath, { lenient: true });
  } catch {
    return undefined;
  }
  const pick = (id: string) => overview.sections.find((s) => s.id === id)?.content ?? '';
  return { task: pick('task'), progress: pick('progress'), decisions: pick('decisions'), context: pick('context'), open: pick('open'), recent: pick('recent') };
}

async function sourceOf(files: CandidateFiles): Promise<{ source: HandoffSource; sections: Sections } | undefined> {
  const sections = await sectionsOf(files);
  if (!sections) return undefined;
  const notes = parseScratch(files.scratchTail)
    .notes.map((n) => n.text)
    .reverse();
  const source: HandoffSource = { id: files.id, lastActiveMs: files.lastActiveMs, overviewPath: files.overviewPath, ...sections, notes };
  return hasContent(source) ? { source, sections } : undefined;
}

/** The most recently active other session with real content (bare templates are passed over). */
export async function pickHandoffSource(project: ProjectRef, selfId: string): Promise<{ source: HandoffSource; sections: Sections } | undefined> {
  for (const candidate of sessionsByActivity(project, selfId).slice(0, CANDIDATES_READ)) {
    const files = readCandidate(project, candidate);
    const found = files && (await sourceOf(files));
    if (found) return found;
  }
  return undefined;
}

/** The handoff block's body for a session starting at `startedAt`, and its source; '' when off or nothing to hand over. */
export async function handoffText(project: ProjectRef, selfId: string, startedAt: Date, chars: number): Promise<{ text: string; from?: string }> {
  if (chars <= TAG_OVERHEAD) return { text: '' };
  const found = await pickHandoffSource(project, selfId);
  const text = found ? renderHandoff(withoutKnown(found.source, project), startedAt.getTime(), chars - TAG_OVERHEAD) : '';
  return text ? { text, from: found!.source.id } : { text };
}

/**
 * The source without the decisions workspace memory already carries (its session end offered them
 * there): the new session's memory part shows each once.
 */
function withoutKnown(source: HandoffSource, project: ProjectRef): HandoffSource {
  let known: Set<string>;
  try {
    known = new Set(readWorkspaceSync(project.dir).entries.map((e) => canonical(e.text)));
  } catch {
    return source; // a broken workspace file is reported by `wmem memories`, not here
  }
  if (!known.size) return source;
  const isKnown = (line: string) => known.has(canonical(line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '').replace(/(^|\s)#decisions(?=\s|$)/g, '$1')));
  const decisions = source.decisions.split('\n').filter((l) => !isKnown(l)).join('\n');
  return { ...source, decisions, notes: source.notes.filter((n) => !isKnown(n)) };
}

/** What a new session starts from. */
export interface SessionStartPlan {
  /** The overview to create it with, when it continues an earlier session. */
  overview?: string;
  /** The handoff block to freeze into its state. */
  handoff?: string;
  /** The session it continues or hands over from. */
  from?: string;
  /** What the new session's meta.json records of it: the frozen block (`handoff`) and where it came from. */
  meta?: { handoff: string; handoffFrom: string } | { continuedFrom: string };
  warnings: string[];
}

export interface PlanOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  now: Date;
  /** The template the session would otherwise start from. */
  template: string;
  /** `--continue [ID]`: true for the most recent session with content; else the id. */
  continueFrom?: string | true;
}

/** Decides, before the session is created, whether it continues an earlier one or gets a handoff. */
export async function planSessionStart(project: ProjectRef, id: string, options: PlanOptions): Promise<SessionStartPlan> {
  const settings = readHandoffSettings(options.home, options.env);
  const continueFrom = options.continueFrom ?? (settings.continueSessions ? true : undefined);
  if (continueFrom !== undefined) {
    const found = continueFrom === true ? await pickHandoffSource(project, id) : await namedSource(project, continueFrom, id);
    if (found) return { overview: await continuedOverview(options.template, found, options.now), from: found.source.id, meta: { continuedFrom: found.source.id }, warnings: settings.warnings };
    if (options.continueFrom !== undefined) throw usageError(`no earlier session of ${project.cwd} has anything to continue from`, "start afresh with 'wmem init --new'");
  }
  const { text, from } = await handoffText(project, id, options.now, settings.handoffChars);
  return { ...(text && from ? { handoff: text, from, meta: { handoff: text, handoffFrom: from } } : {}), warnings: settings.warnings };
}

/** `--continue ID`: that session, which must exist in the project and not be the new one. */
async function namedSource(project: ProjectRef, wanted: string, selfId: string): Promise<{ source: HandoffSource; sections: Sections } | undefined> {
  const ids = (await listSessionIds(project.dir)).filter((s) => s !== selfId);
  const known = ids.includes(wanted) && sessionsByActivity(project, selfId).find((s) => s.id === wanted);
  if (!known) {
    throw usageError(`unknown session ${wanted} for ${project.cwd}`, ids.length ? `the project's sessions: ${ids.join(', ')}` : "the project has no other session: start one with 'wmem init --new'");
  }
  const files = readCandidate(project, known);
  if (!files) throw usageError(`session ${wanted}'s overview cannot be read (missing, a symbolic link or over 256 KB)`, 'repair that file, or continue from another session');
  const found = await sourceOf(files);
  if (!found) throw usageError(`session ${wanted} is still the bare template: nothing to continue from`, "start afresh with 'wmem init --new'");
  return found;
}

const CARRIED = ['task', 'progress', 'decisions', 'context', 'open'] as const;

/** The template with the source's task, progress, decisions, known context and open questions, and a Recent Actions line. */
async function continuedOverview(template: string, found: { source: HandoffSource; sections: Sections }, now: Date): Promise<string> {
  const { parseOverview, replaceSectionContent } = await import('../memory/overview.js');
  const { source, sections } = found;
  let text = template;
  const carry = (id: string, content: string) => {
    const overview = parseOverview(text);
    const section = overview.sections.find((s) => s.id === id);
    if (!section || !content.trim()) return;
    try {
      text = replaceSectionContent(overview, section, redactSecrets(content));
    } catch {
      // Content that would break the sections (an unclosed fence) stays behind; the line below says where it is.
    }
  };
  for (const id of CARRIED) carry(id, sections[id]);
  carry('recent', `- ${now.toISOString().slice(0, 16)}Z continued from session ${source.id} (its overview: ${source.overviewPath}; its history: wmem search --session ${source.id} WORDS)`);
  return text;
}
