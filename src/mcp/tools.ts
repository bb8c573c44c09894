// The MCP tools: each one a use case of src/app/ with a zod input schema (the SDK turns it into
// the JSON schema clients see and validates arguments against it), a title and a description an
// agent can act on. A handler returns the CLI's wording as text and the use case's result as
// structured content; refusals are thrown as WmemError and become tool errors in server.ts.
import { z } from 'zod';
import { appEnv, type McpScope } from './scope.js';
import { PLAIN_STYLE } from '../ui/color.js';

export interface ToolOutput {
  text: string;
  data: Record<string, unknown>;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  input: z.ZodRawShape;
  /** Read-only tools never change memory (a hint clients use to skip confirmation). */
  readOnly: boolean;
  run(args: Record<string, unknown>, scope: McpScope): Promise<ToolOutput>;
}

/** The most of a file `show` returns in one result: an agent's context is the scarce thing. */
export const SHOW_MAX_CHARS = 100_000;

// Lengths are left to the use cases (a section's max_chars, the workspace gate), so that a text
// the CLI takes is taken here too and one it refuses is refused with its message.
const SECTION = z.string().min(1).describe('section id or title of overview.md, e.g. task, progress, decisions, next_steps (see wmem://overview)');
const MEMORY_TYPES = ['feedback', 'project', 'decision', 'reference'] as const;

const asData = (value: unknown) => value as Record<string, unknown>;

export const TOOLS: ToolSpec[] = [
  {
    name: 'note',
    title: 'Note to working memory',
    description:
      'Append one note to the session\'s scratch notes at once (durable, survives context compaction and crashes). Use it for decisions, findings, dead ends and next steps as they happen; importance 0.8 or more marks a decision. Notes are folded into the overview by consolidate. Secrets are refused.',
    input: {
      text: z.string().min(1).describe('the note, one thought; plain text or Markdown'),
      importance: z.number().min(0).max(1).optional().describe('how much it matters, 0 to 1 (default 0.5; 0.8 and up count as decisions)'),
      tags: z.array(z.string().min(1)).optional().describe('tags such as decisions or progress: the overview section the note belongs under'),
    },
    readOnly: false,
    async run(args, scope) {
      const { addNote } = await import('../app/note.js');
      const result = await addNote({ text: String(args.text), importance: args.importance as number | undefined, tags: args.tags as string[] | undefined }, appEnv(scope));
      return { text: result.note, data: asData(result) };
    },
  },
  {
    name: 'set_section',
    title: 'Replace an overview section',
    description:
      'Replace the whole content of one section of the session overview (overview.md, injected into every prompt), e.g. task or next_steps. The section\'s max_chars is enforced; an empty text empties it. Read wmem://overview first to see the sections.',
    input: { section: SECTION, text: z.string().describe('the new content of the section (Markdown)') },
    readOnly: false,
    async run(args, scope) {
      const { setSection } = await import('../app/set.js');
      const { renderSection } = await import('../views/memory.js');
      const result = await setSection({ section: String(args.section), text: String(args.text) }, appEnv(scope));
      return { text: renderSection('set', result), data: asData(result) };
    },
  },
  {
    name: 'append_section',
    title: 'Append to an overview section',
    description: 'Add text at the end of one section of the session overview (overview.md), e.g. a line to progress or decisions. The section\'s max_chars is enforced.',
    input: { section: SECTION, text: z.string().min(1).describe('the text to add (Markdown)') },
    readOnly: false,
    async run(args, scope) {
      const { appendSection } = await import('../app/set.js');
      const { renderSection } = await import('../views/memory.js');
      const result = await appendSection({ section: String(args.section), text: String(args.text) }, appEnv(scope));
      return { text: renderSection('append', result), data: asData(result) };
    },
  },
  {
    name: 'search',
    title: 'Search working memory',
    description:
      'Ranked search, in your own words, across the overview, scratch notes, detail files, the archives of compacted history and workspace memory. Each hit gives file:line, a snippet, the lines just before and after it and, for an archived message, its date; open a file with show. Use it to recover what compaction moved out of your context.',
    input: {
      query: z.string().min(1).describe('what to look for'),
      limit: z.number().int().min(1).optional().describe('how many hits (default 10)'),
      all_sessions: z.boolean().optional().describe("search every session of the project, not only this one"),
    },
    readOnly: true,
    async run(args, scope) {
      const { searchSession } = await import('../app/search.js');
      const { renderSearch } = await import('../views/memory.js');
      const { finishInBackground } = await import('../app/finish-background.js');
      // A large file scanned for want of an index gets one from a background run.
      const indexLater = (id: string) => void finishInBackground(scope.bin, scope.where, id);
      const result = await searchSession({ query: String(args.query), limit: args.limit as number | undefined, allSessions: args.all_sessions as boolean | undefined, indexLater }, appEnv(scope));
      return { text: renderSearch(result, PLAIN_STYLE), data: asData(result) };
    },
  },
  {
    name: 'show',
    title: 'Show a memory file',
    description: `Read one file of the session's working memory: overview, scratch, meta, messages, detail (lists the detail files), detail/NAME, archive (lists the archives) or archive/NAME. At most ${SHOW_MAX_CHARS} characters are returned; search finds the lines in larger files.`,
    input: { file: z.string().min(1).optional().describe('overview (default), scratch, meta, messages, detail, detail/NAME, archive, archive/NAME') },
    readOnly: true,
    async run(args, scope) {
      const { showFile } = await import('../app/show.js');
      const result = await showFile({ file: (args.file as string | undefined) ?? 'overview' }, appEnv(scope));
      if ('files' in result) return { text: result.files.map((n) => `${result.relative}/${n}`).join('\n') || `${result.relative}/ is empty`, data: asData(result) };
      const truncated = result.content.length > SHOW_MAX_CHARS;
      const content = truncated ? result.content.slice(0, SHOW_MAX_CHARS) : result.content;
      const text = truncated ? `${content}\n[… ${result.content.length - SHOW_MAX_CHARS} more characters: use search to find the lines you need]` : content;
      return { text, data: { ...result, content, truncated, chars: result.content.length } };
    },
  },
  {
    name: 'remember',
    title: 'Remember in workspace memory',
    description:
      'Keep a durable fact in the project\'s workspace memory, shared by all its sessions and injected into them: a user preference (feedback), a project fact (project), a decision with its reason (decision) or where something is (reference). Passes a strict gate: no secrets, stack traces, raw errors or commit hashes; at least 20 characters.',
    input: {
      text: z.string().min(1).describe('the fact, one sentence that will still be true in a later session'),
      type: z.enum(MEMORY_TYPES).describe('feedback, project, decision or reference'),
    },
    readOnly: false,
    async run(args, scope) {
      const { remember } = await import('../app/remember.js');
      const { renderRemember } = await import('../views/memory.js');
      const result = await remember({ text: String(args.text), type: String(args.type), source: 'explicit' }, appEnv(scope));
      return { text: renderRemember(result), data: asData(result) };
    },
  },
  {
    name: 'forget',
    title: 'Forget a workspace memory entry',
    description: 'Remove one entry from workspace memory by its id (read wmem://workspace for the ids). A shared team entry is removed from the team file too.',
    input: { id: z.string().min(1).describe('the entry id, e.g. w3f9a1c2') },
    readOnly: false,
    async run(args, scope) {
      const { forget } = await import('../app/forget.js');
      const { renderForget } = await import('../views/memory.js');
      const result = await forget({ id: String(args.id) }, appEnv(scope));
      return { text: renderForget(result), data: asData(result) };
    },
  },
  {
    name: 'status',
    title: 'Context and memory status',
    description:
      'How full the context is (tokens used, the window, the percentage, the pressure: safe, moderate, high or critical) with the hint of what to do now, and the sizes of the session\'s memory files. Check it before a long task or when the pressure hint says so.',
    input: {
      tokens_used: z.number().int().min(0).optional().describe('tokens in use, if you know them better than the transcript does'),
      tokens_max: z.number().int().min(1).optional().describe('the context window in tokens (default: the session setting, else the model\'s)'),
    },
    readOnly: true,
    async run(args, scope) {
      const { sessionStatus } = await import('../app/status.js');
      const { renderStatus } = await import('../views/memory.js');
      const result = await sessionStatus({ tokensUsed: args.tokens_used as number | undefined, tokensMax: args.tokens_max as number | undefined }, appEnv(scope));
      for (const warning of result.warnings) scope.log(`note: ${warning}`);
      return { text: renderStatus(result, PLAIN_STYLE), data: asData(result.data) };
    },
  },
  {
    name: 'compact',
    title: 'Compact the message history',
    description:
      'Move old turns of the session\'s messages.jsonl into an archive, losslessly (wmem restore undoes it), keeping the most recent turns. A dry run by default: it says what would move and changes nothing; pass dry_run: false to do it.',
    input: {
      dry_run: z.boolean().optional().describe('true (default): only report what would move; false: compact'),
      target: z.enum(['conversation', 'tools', 'all']).optional().describe('conversation (default): old turns; tools: old tool outputs only; all: both'),
      keep_recent: z.number().int().min(0).optional().describe('how many recent turns to keep (default 5)'),
      keep_steps: z.number().int().min(1).optional().describe('at most this many recent steps (an assistant response with its tool results) are kept, so one long turn can be cut inside (default 20)'),
    },
    readOnly: false,
    async run(args, scope) {
      const { compactMemory, finishInBackground } = await import('../app/compact.js');
      const { renderCompact } = await import('../views/memory.js');
      const result = await compactMemory({
        compact: {
          target: (args.target as 'conversation' | 'tools' | 'all' | undefined) ?? 'conversation',
          strategy: 'archive',
          keepRecent: (args.keep_recent as number | undefined) ?? 5,
          keepSteps: (args.keep_steps as number | undefined) ?? 20,
          dryRun: args.dry_run !== false,
          wait: false,
        },
        startFinish: (session) => finishInBackground(scope.bin, scope.where, session.id),
      }, appEnv(scope));
      return { text: renderCompact(result), data: asData(result) };
    },
  },
  {
    name: 'consolidate',
    title: 'Consolidate notes into the overview',
    description:
      'Fold the scratch notes into the overview\'s sections (decisions, progress, …), archiving the notes it consumed (nothing is lost). Do it when the notes pile up or before the context is compacted. dry_run: true returns the new overview and changes nothing.',
    input: { dry_run: z.boolean().optional().describe('return the new overview, change nothing') },
    readOnly: false,
    async run(args, scope) {
      const { consolidate } = await import('../app/consolidate.js');
      const { renderConsolidate } = await import('../views/memory.js');
      const result = await consolidate({ dryRun: Boolean(args.dry_run), timeoutMs: 300_000 }, appEnv(scope));
      return { text: renderConsolidate(result), data: asData(result) };
    },
  },
];
