// The one interface every agent adapter implements (docs/hooks.md). What happens on each moment of a
// session is the same for every agent and lives in the hook driver (src/app/hook.ts): start →
// memory part; prompt → meta part (memory too after a compaction nobody answered); tool done or
// failed → track; before compaction → archive the transcript; after compaction → keep its
// summary; end → deterministic consolidation. An adapter only says how its agent spells those
// moments, what its hook input looks like, how it wants an answer, how to read token use from its
// transcript, and where its config lives. Adding an agent = one folder `src/agents/<id>/` whose
// hook.ts exports its `AgentHook` and whose index.ts exports the `AgentAdapter` spreading it
// (under the agent's id), plus its line in src/agents/lookup.ts (the agents by name) and its
// adapter in src/agents/registry.ts (test/unit/agent-lookup.test.ts holds the two to agree).
//
// Rules for implementations: everything here is pure or reads only the files it is given, except
// `transcript.read` (which reads the agent's transcript). Nothing here writes: config changes are
// planned as data (`ConfigPlan`) and written by the install use case, so install, uninstall,
// doctor and --dry-run share one computation. Keep hook.ts light: the per-prompt hook path loads
// it (never index.ts), so heavy helpers go behind `await import(...)`.
//
// Helpers for implementations: hook-json.ts parses the snake_case JSON hook input Claude Code,
// Codex and Gemini CLI share; transcript-file.ts's readJsonlUsage reads any JSONL transcript
// incrementally given the agent's LineRules; config-file.ts's wmemCommandPrefix is the command a
// hook runs. test/unit/adapters.test.ts holds every registered adapter to this contract.
import type { ToolEvent } from '../memory/hot-state.js';
import type { UsageView } from '../memory/meter.js';
import type { TranscriptCursor } from '../store/hook-state.js';
import type { UsageLines } from '../history/model/usage.js';

/** wmem's moments of a session, whatever the agent calls them. */
export const MOMENTS = ['session-start', 'prompt', 'tool-done', 'tool-failed', 'before-compact', 'after-compact', 'session-end', 'ignore'] as const;
export type Moment = (typeof MOMENTS)[number];

/** One of the agent's hook events. */
export interface AgentEvent {
  /** The agent's own name for it, as its config spells it (`UserPromptSubmit`, `BeforeAgent`). */
  name: string;
  moment: Moment;
  /**
   * before-compact only: the agent also fires it when no compaction follows (Gemini CLI's
   * PreCompress fires before every model call, google-gemini/gemini-cli#18083). The driver then
   * archives only what is new and never takes the event as proof that a compaction happened.
   */
  speculative?: boolean;
}

/** What a tool call looked like, in the agent's terms but neutral fields. */
export interface ToolCall {
  name?: string;
  input?: Record<string, unknown>;
  /** The tool's result as the agent reports it (a string or an object). */
  response?: unknown;
  /** tool-failed: the failure message. */
  error?: string;
  /** tool-failed: the user stopped it (no error is opened then). */
  isInterrupt?: boolean;
  /** The agent's id for the call (Codex's `tool_use_id`), to find more about it in the transcript. */
  id?: string;
  /** The command's exit code, when known (Codex: from its rollout). */
  exitCode?: number;
}

/** A hook's input once the adapter has parsed it: the same fields for every agent. */
export interface HookInput {
  /** The adapter's id (`claude`). */
  agent: string;
  /** The agent's event name, canonical spelling (one of the adapter's `events`). */
  event: string;
  moment: Moment;
  /** The agent's session id: it is the wmem session id. */
  sessionId?: string;
  /** Absolute path of the agent's transcript, when it keeps one as a file. */
  transcriptPath?: string;
  /** The folder the agent runs in, from the input. */
  cwd?: string;
  /** The agent's project folder from its environment (`CLAUDE_PROJECT_DIR`), preferred over `cwd`. */
  projectDir?: string;
  /** session-start: startup, resume, clear, compact, fork. */
  source?: string;
  /** The model the agent runs on, as it names it. */
  model?: string;
  /** before/after-compact: manual or auto. */
  trigger?: string;
  /** after-compact: the agent's summary of what it compacted. */
  summary?: string;
  /** session-end: why it ended. */
  reason?: string;
  /** prompt: the user's prompt, when the agent passes it. */
  prompt?: string;
  /** tool-done / tool-failed. */
  tool?: ToolCall;
  /**
   * The event comes from a subagent or a side chain of the session (Claude Code's `agent_id`,
   * a parent session or thread id, `isSidechain`): it never starts a session of its own and
   * never gets a memory part; its tool calls count for the session it belongs to.
   */
  subagent?: boolean;
  /**
   * Token use the agent passed in the input itself, where it keeps no transcript file wmem can
   * read (OpenCode's plugin reads it through its SDK client). A transcript read, when there is
   * one, wins.
   */
  usage?: UsageView;
  /**
   * before-compact, where the agent keeps no transcript file: the conversation, one JSON line
   * per message with its id (OpenCode's messages). wmem keeps them in a file of its own
   * (state/<agent>-transcript.jsonl, each id once) and archives from there.
   */
  conversation?: { id: string; line: string }[];
}

/** A hook input that cannot be used (wrong event, not JSON): logged, never shown to the agent. */
export class HookInputError extends Error {
  override name = 'HookInputError';
}

/** The context in use as the agent's transcript shows it (defined with the meter). */
export type { UsageView } from '../memory/meter.js';

/**
 * Where a transcript read stopped, kept in the session's hook state between hooks. Opaque to the
 * driver except `path`: a reader extends it with its own fields (offsets, hashes, the usage so
 * far), which must survive JSON.stringify / JSON.parse. A cursor that also carries the UsageView
 * fields is taken as the last figure when the transcript has gone since.
 */
export type { TranscriptCursor } from '../store/hook-state.js';

export interface TranscriptRead {
  cursor: TranscriptCursor;
  /** The usage including a last line still being written (not in the cursor). */
  view: UsageView;
  changed: boolean;
}

/** Reads token use, model, window and compactions from the agent's transcript, incrementally. */
export interface TranscriptReader {
  /**
   * Brings `previous` (this reader's cursor from an earlier hook, or undefined) up to date with
   * the transcript at `file`. A cursor from another file or a rewritten file is read afresh.
   * Throws the fs error (ENOENT, EISDIR) when the file cannot be read.
   */
  read(file: string, previous?: TranscriptCursor): Promise<TranscriptRead>;
}

/** Where an agent's config can live. Not every agent has every scope. */
export type Scope = 'project' | 'local' | 'user';

/** Where the command runs, for config paths (`$CLAUDE_CONFIG_DIR`, `$CODEX_HOME`, the project). */
export interface ConfigPlace {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** What `wmem install AGENT` asks for. */
export interface InstallRequest {
  /** The shell words that run this wmem (`wmem`, or `'/usr/bin/node' '/opt/wmem/bin/wmem.js'`). */
  command: string;
  /** The user's window, passed to every hook (`--tokens-max N`). */
  tokensMax?: number;
  /** wmem's home, for what the agent's side writes itself (OpenCode's plugin log). */
  home?: string;
}

/** A config file that cannot be changed safely (not JSON, wrong shape): exit 2, file untouched. */
export class ConfigShapeError extends Error {
  override name = 'ConfigShapeError';

  /** `hint`: how to fix it, for the one-line error. */
  constructor(
    message: string,
    public hint = 'fix that file (or move it away) and run the command again',
  ) {
    super(message);
  }
}

/** A change to one config file, computed from its text alone. */
export interface ConfigPlan {
  file: string;
  /** The file's text before (undefined: it does not exist). */
  before: string | undefined;
  /** The text to write; equal to `before` when nothing changes. */
  after: string;
  changed: boolean;
  /** The events whose wmem entry is added, updated or removed. */
  events: string[];
  /** How many wmem entries an uninstall removes. */
  removed?: number;
  /** Things the user must know or do (Codex: trust the hooks in its TUI). */
  notes: string[];
  /** The parsed form of `after`, for `--json --dry-run` (a settings object). */
  preview?: unknown;
  /**
   * The file is wmem's own and goes as a whole (OpenCode's plugin file on uninstall); `after` is
   * then ''. Only ever set for a file the plan recognised as wmem's.
   */
  remove?: boolean;
}

/** wmem's state in one config file, for `wmem doctor`. */
export interface ConfigStatus {
  scope: Scope;
  file: string;
  exists: boolean;
  /** Why the file cannot be read (it does not parse); the other fields are then empty. */
  error?: string;
  /** Events whose wmem entry is there, and those that are not. */
  installed: string[];
  missing: string[];
  /** The command an installed entry runs (for doctor's "does it run" check). */
  command?: string;
  /** Problems this file shows (Codex: installed but not trusted). */
  problems: string[];
}

/** Install, uninstall and diagnose of the agent's config, as pure plans over file texts. */
export interface AgentConfig {
  scopes: readonly Scope[];
  defaultScope: Scope;
  /** The config file a scope means. */
  file(scope: Scope, place: ConfigPlace): string;
  /** Files besides `file` that `diagnose` needs (Codex: config.toml for the trust state). */
  related?(scope: Scope, place: ConfigPlace): string[];
  /** Throws ConfigShapeError when `text` cannot be changed safely. */
  planInstall(file: string, text: string | undefined, request: InstallRequest): ConfigPlan;
  planUninstall(file: string, text: string | undefined): ConfigPlan;
  /** `related` maps each related file to its text (undefined: missing). Never throws. */
  diagnose(scope: Scope, file: string, text: string | undefined, related: Record<string, string | undefined>): ConfigStatus;
  /** The command prefix of an installed entry (`… wmem --home H`), without `hook EVENT`. */
  commandPrefix(command: string): string;
}

/** How an adapter answers a moment. */
export interface AnswerSpec {
  /** The agent's cap on additional context, in characters. */
  contextCap: number;
  /**
   * The JSON to print for additional context on this event, or undefined when the agent takes
   * none there (Gemini's AfterTool would append it to the tool result). `memory`: a memory part
   * that replaces the one the agent's side holds (only for `memoryCopy: 'replaced'`).
   */
  answer(input: HookInput, additionalContext: string, memory?: string): unknown | undefined;
  /**
   * How the agent holds the memory part it was given. 'kept' (default): every text a hook gives
   * stays in the conversation, so memory that changed since goes to the next prompt as the blocks
   * that changed. 'replaced': the agent's side keeps one copy and swaps it (OpenCode's plugin puts
   * it in the system prompt of every request), so the prompt hands over the new part whole.
   */
  memoryCopy?: 'kept' | 'replaced';
  /**
   * Whether the memory part goes with session-start (default true). False: the agent's
   * session-start text does harm (Gemini CLI prepends it to the first prompt, and on a resume
   * drops every user turn that starts with it, the prompt and its reply included), so session-start
   * answers nothing and the first prompt carries the memory part.
   */
  memoryAtStart?: boolean;
}

/**
 * How `wmem mcp` is registered in the agent's own MCP config, as data (the planners in
 * mcp-register.ts read it; keeping it data keeps the JSON and TOML parsers off the hook path).
 */
export interface McpRegistration {
  scopes: readonly ('project' | 'user')[];
  defaultScope: 'project' | 'user';
  /** The MCP config file a scope means. */
  file(scope: 'project' | 'user', place: ConfigPlace): string;
  shape: McpShape;
}

/**
 * The shape of wmem's entry. json: `<container>.wmem = {...before, command, args, ...after}`
 * (`command: 'array'`: `command: [program, ...args]` and no `args`, OpenCode's); the container
 * is one key of the top object, its name taken literally (`amp.mcpServers` is one key).
 * toml: a `[<table>.wmem]` table with `command` and `args` (Codex's `mcp_servers`).
 */
export type McpShape =
  | { format: 'json'; container: string; command: 'split' | 'array'; before?: Record<string, unknown>; after?: Record<string, unknown> }
  | { format: 'toml'; table: string };

/** What an agent is called; each agent's folder keeps them in its names.ts (agents/lookup.ts reads them alone). */
export interface AgentNames {
  /** Short id used on the command line and in state (`claude`). */
  id: string;
  /** Other names accepted on the command line (`claude-code`). */
  aliases: readonly string[];
  /** For people (`Claude Code`). */
  displayName: string;
  /** The name recorded in the session's meta.json `agent` (kept stable for existing sessions). */
  metaName: string;
}

/**
 * What a hook of the agent needs, apart from its installer: the folder's hook.ts exports it alone,
 * so that the per-prompt and per-tool hooks (agents/lookup.ts, the hook's first stage) load no
 * config planner, settings parser or trust check; index.ts spreads it into the whole adapter.
 */
export interface AgentHook extends AgentNames {
  /** Every event wmem installs or answers, with its moment. */
  events: readonly AgentEvent[];
  /** The event named on the command line, in a forgiving spelling, or undefined. */
  eventFor(name: string): AgentEvent | undefined;
  /** Parses the hook's stdin. Throws HookInputError on anything malformed. */
  parseInput(text: string, event: AgentEvent, env: NodeJS.ProcessEnv): HookInput;
  /**
   * Optional: completes a parsed input from the agent's transcript where its hook input leaves
   * something out (Codex: PostCompact carries no summary; its rollout's compacted line has it).
   * Reads only `input.transcriptPath`; never throws (gives the input back as it was).
   */
  completeInput?(input: HookInput): Promise<HookInput>;
  /**
   * tool-done / tool-failed as a `wmem track` event; `root` makes project paths relative. May
   * read the transcript.
   */
  toolEvent(input: HookInput, root: string): ToolEvent | Promise<ToolEvent>;
  answer: AnswerSpec;
  /** Token use from the agent's transcript; absent when the agent keeps none wmem can read. */
  transcript?: TranscriptReader;
  /**
   * What one line of its transcript (or of the conversation wmem keeps for it) says about token
   * use, for the report's chart: a pure rule in the folder's usage-lines.ts, loaded when asked
   * (the per-prompt hooks never need it).
   */
  usageLines?(): Promise<UsageLines>;
  /** The window wmem assumes for this agent when neither the model nor the user says. */
  defaultWindow?: number;
  /** The agent's own command that compacts, for hints (`/compact`). */
  compactCommand?: string;
}

/** The whole adapter: its hook part (hook.ts) and its install, uninstall and diagnosis (index.ts). */
export interface AgentAdapter extends AgentHook {
  config: AgentConfig;
  /** Where `wmem install AGENT --mcp` registers the MCP server; absent: the agent has no MCP config wmem writes. */
  mcp?: McpRegistration;
}

/**
 * What an event's name may hold besides its letters: `session-start`, `session_start` and
 * `SessionStart` name one event. bin/wmem.js reads these from dist/fast/first-routes.json to key
 * the words of a hook's command line as eventKey does.
 */
export const EVENT_NAME_SEPARATORS = '[-_\\s]';
const SEPARATORS = new RegExp(EVENT_NAME_SEPARATORS, 'g');

/** An event's name as names are compared: without separators, in lower case. */
export function eventKey(name: string): string {
  return name.replace(SEPARATORS, '').toLowerCase();
}

/** Accepts `session-start`, `sessionstart`, `SessionStart` alike. */
export function eventByName(events: readonly AgentEvent[], name: string): AgentEvent | undefined {
  const key = eventKey(name);
  return events.find((e) => eventKey(e.name) === key);
}

/** The user's home for MCP config paths (store/names.ts: $HOME first, else the OS's). */
export { userHome } from '../store/names.js';
