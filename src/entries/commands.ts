// Every command, declared once as data: its name, arguments, options (with their defaults) and
// summary, and a loader that imports the command module only when the command runs. The full
// command line (src/cli.ts) turns each row into a commander command, in this order, so this table
// is what `wmem --help` prints. The commands the lean entries serve are declared in
// lean-commands.ts (data their bundles read without any loader) and listed here with theirs.
// Nothing here is imported eagerly: each loader imports its module when the command runs.
import type { CommandResult, RunContext } from '../commands/run.js';
import { COMPACT, CONTEXT, HOOK, SEARCH, type CommandData, type HelpText } from './lean-commands.js';

export type { ArgumentSpec, CommandData, HelpText } from './lean-commands.js';

export type Handler = (options: Record<string, unknown>, ctx: RunContext, args: unknown[]) => Promise<CommandResult>;

export interface CommandSpec extends CommandData {
  load: () => Promise<{ run: Handler }>;
}

const TYPES = ['feedback', 'project', 'decision', 'reference'];
const SCOPE: HelpText = (registry) => `which config file (default: the agent's own: ${registry.defaultScopesHelp()})`;

/** `wmem --help` lists the commands in this order. */
export const COMMANDS: CommandSpec[] = [
  {
    name: 'init',
    summary: 'create the session tree (never overwrites) and make it current',
    options: [
      { flags: '--lang <lang>', description: 'template language: en or zh', default: 'en' },
      { flags: '--template <file>', description: 'an overview.md template of your own' },
      { flags: '--tokens-max <n>', description: "the model's context window in tokens", intMin: 1 },
      { flags: '--new', description: 'start a new session even if the project has a current one' },
      { flags: '--continue [id]', description: "start a new session from an earlier one's task, progress, decisions, context and open questions (default: the most recent)" },
    ],
    load: () => import('../commands/init.js'),
  },
  { ...CONTEXT, load: () => import('../commands/context.js') },
  {
    name: 'note',
    summary: 'append a note to scratch.md at once (- reads standard input)',
    args: [{ name: '<text...>', description: 'the note; - to read it from standard input' }],
    options: [
      { flags: '--importance <x>', description: 'how much it matters, 0 to 1 (0.8 and up count as decisions)' },
      { flags: '--tag <tag>', description: 'a tag (repeatable): the overview section it belongs under', repeatable: true },
    ],
    load: () => import('../commands/note.js'),
  },
  {
    name: 'set',
    summary: 'replace a section of overview.md (its max_chars enforced)',
    args: [{ name: '<section>', description: 'section id, e.g. task, progress, decisions' }, { name: '<text...>', description: 'the new content; - to read it from standard input' }],
    load: () => import('../commands/set.js'),
  },
  {
    name: 'append',
    summary: 'append to a section of overview.md (its max_chars enforced)',
    args: [{ name: '<section>', description: 'section id' }, { name: '<text...>', description: 'the text to add; - to read it from standard input' }],
    load: () => import('../commands/set.js').then((m) => ({ run: m.runAppend })),
  },
  {
    name: 'show',
    summary: 'print a memory file: overview, scratch, meta, messages, detail/NAME, archive/NAME',
    args: [{ name: '[file]', description: 'which file', default: 'overview' }],
    load: () => import('../commands/show.js'),
  },
  {
    name: 'status',
    summary: "the session's sizes, token use, pressure and whether the overview is maintained",
    options: [{ flags: '--tokens-used <n>', description: 'tokens used so far', intMin: 0 }, { flags: '--tokens-max <n>', description: 'the context window (else meta.json)', intMin: 1 }],
    load: () => import('../commands/status.js'),
  },
  { name: 'sessions', summary: "the project's sessions", load: () => import('../commands/sessions.js') },
  { ...COMPACT, load: () => import('../commands/compact.js') },
  {
    name: 'restore',
    summary: 'put what a compaction archived back into messages.jsonl',
    args: [{ name: '<archive>', description: 'archive file (archive/messages-<stamp>.jsonl)' }],
    load: () => import('../commands/restore.js'),
  },
  {
    name: 'consolidate',
    summary: 'fold scratch notes into overview.md',
    options: [
      { flags: '--llm <cmd>', description: 'command that reads the synthesis prompt on stdin and prints the new overview' },
      { flags: '--timeout <seconds>', description: 'how long the LLM command may take', intMin: 1, default: 300 },
      { flags: '--dry-run', description: 'print the new overview, change nothing' },
    ],
    load: () => import('../commands/consolidate.js'),
  },
  { ...SEARCH, load: () => import('../commands/search.js') },
  {
    name: 'remember',
    summary: "keep a fact in workspace memory, shared by the project's sessions",
    args: [{ name: '<text...>', description: 'the fact; - to read it from standard input' }],
    options: [
      { flags: '--type <type>', description: 'kind of memory (required)', choices: TYPES, mandatory: true },
      { flags: '--source <source>', description: 'where it comes from', choices: ['explicit', 'manual'], default: 'explicit' },
    ],
    load: () => import('../commands/remember.js'),
  },
  {
    name: 'forget',
    summary: 'remove a workspace memory entry',
    args: [{ name: '<id>', description: 'entry id (see wmem memories)' }],
    load: () => import('../commands/remember.js').then((m) => ({ run: m.runForget })),
  },
  {
    name: 'memories',
    summary: 'list workspace memory as injected',
    options: [{ flags: '--team', description: "every entry, the team file's included, not only those injected" }],
    load: () => import('../commands/remember.js').then((m) => ({ run: m.runList })),
  },
  {
    name: 'report',
    summary: 'one HTML page of what happened to the context: tokens over time, compactions, notes, errors, the overview',
    options: [
      { flags: '--all', description: 'add a row per session of the project' },
      { flags: '--out <file>', description: 'where to write it (- for standard output; default: report.html in the session folder)' },
      { flags: '--open', description: 'open it in the default browser' },
    ],
    load: () => import('../commands/report.js'),
  },
  {
    name: 'share',
    summary: "copy workspace memory into .wmem/memory.md, committed with the code, so the team's sessions see it",
    args: [{ name: '[ids...]', description: 'workspace entry ids (see wmem memories)' }],
    options: [
      { flags: '--all', description: 'every workspace entry' },
      { flags: '--type <type>', description: 'every entry of this type', choices: TYPES },
      { flags: '--remove <id>', description: 'take an entry out of the team file' },
      { flags: '--init', description: 'create the team file and the .gitattributes union-merge line' },
      { flags: '--check', description: 'report duplicates, malformed lines, secrets, broken or future times (exit 1) and what is not injected: for CI' },
      { flags: '--diff', description: 'show what the command would add, change and remove in the team file; write nothing' },
    ],
    load: () => import('../commands/share.js'),
  },
  { name: 'track', summary: 'read a tool event (JSON on stdin) into hot session state', load: () => import('../commands/track.js') },
  {
    name: 'prune',
    summary: 'filter a tool output (stdin → stdout); the full text goes to cache/',
    options: [{ flags: '--mode <mode>', description: 'how hard to cut', choices: ['auto', 'normal', 'aggressive', 'hyper'], default: 'auto' }],
    load: () => import('../commands/prune.js'),
  },
  {
    name: 'migrate',
    summary: 'bring in older layouts and other memories: legacy | memory-md FILE | opencode DIR',
    args: [
      { name: '[kind]', description: 'legacy, memory-md or opencode', default: 'legacy' },
      { name: '[path]', description: 'the file or folder to migrate' },
    ],
    options: [{ flags: '--dry-run', description: 'list what would be done' }],
    load: () => import('../commands/migrate.js'),
  },
  {
    name: 'sweep',
    summary: 'storage governance over every project under the home (for CI and cron)',
    options: [
      { flags: '--max-files <n>', description: 'newest cache files to keep per project', intMin: 0, default: 300 },
      { flags: '--ttl <age>', description: 'delete cache files older than this (e.g. 7d, 12h)', default: '7d' },
      { flags: '--dry-run', description: 'delete nothing, report what would go' },
    ],
    load: () => import('../commands/sweep.js'),
  },
  {
    name: 'rm',
    summary: 'delete a session on purpose',
    args: [{ name: '<session>', description: 'session id' }],
    options: [{ flags: '-y, --yes', description: 'do not ask' }],
    load: () => import('../commands/rm.js'),
  },
  { ...HOOK, load: () => import('../commands/hook.js') },
  {
    name: 'install',
    summary: "merge wmem's hooks into an agent's settings",
    args: [{ name: '<agent>', description: (registry) => `the agent: ${registry.knownAgents()}` }],
    options: [
      { flags: '--scope <scope>', description: SCOPE, choices: ['project', 'user', 'local'] },
      { flags: '--tokens-max <n>', description: "your model's context window in tokens, for every session the hooks serve (default: looked up from the session's model)", intMin: 1 },
      { flags: '--mcp', description: (registry) => `register the wmem MCP server (wmem mcp) in the agent's MCP config instead of the hooks (${registry.mcpAgents()})` },
      { flags: '--dry-run', description: 'print the result, change nothing' },
    ],
    load: () => import('../commands/install.js'),
  },
  {
    name: 'uninstall',
    summary: "remove only wmem's hooks from an agent's settings",
    args: [{ name: '<agent>', description: (registry) => `the agent: ${registry.knownAgents()}` }],
    options: [
      { flags: '--scope <scope>', description: SCOPE, choices: ['project', 'user', 'local'] },
      { flags: '--mcp', description: "remove only the wmem MCP server from the agent's MCP config" },
      { flags: '--dry-run', description: 'print the result, change nothing' },
    ],
    load: () => import('../commands/install.js').then((m) => ({ run: m.runUninstall })),
  },
  {
    name: 'mcp',
    summary: "serve the session's working memory to an MCP client on stdio (tools and resources); see docs/mcp.md",
    load: () => import('../commands/mcp.js'),
  },
  {
    name: 'off',
    summary: 'turn wmem off for this project: every hook and wmem context do nothing (wmem on undoes it)',
    load: () => import('../commands/switch.js').then((m) => ({ run: m.runOff })),
  },
  { name: 'on', summary: 'turn wmem back on for this project', load: () => import('../commands/switch.js').then((m) => ({ run: m.runOn })) },
  { name: 'doctor', summary: 'are the hooks installed, runnable, and firing?', load: () => import('../commands/doctor.js') },
];
