// `wmem hook EVENT`: answers a Claude Code hook (JSON on stdin → JSON on stdout). A hook never
// breaks the agent: whatever goes wrong, it exits 0 with nothing on stdout (exit 2 would erase
// the user's prompt) and the error goes to <home>/logs/hooks.log.
import { logHook, recordFired } from '../agents/hook-log.js';
import { normalizeEvent, parseHookInput, type ClaudeHookEvent, type HookInput } from '../agents/claude/protocol.js';
import { readStdin, type CommandResult, type RunContext } from '../ui/run.js';

export interface HookOptions {
  cwd?: string;
  /** The user's window for this agent's model (`wmem install claude --tokens-max N`). */
  tokensMax?: number;
}

type Handler = (input: HookInput, ctx: RunContext, options: HookOptions) => Promise<import('../agents/claude-hooks.js').HookResult>;

async function handlerFor(event: ClaudeHookEvent): Promise<Handler> {
  const hooks = await import('../agents/claude-hooks.js');
  switch (event) {
    case 'SessionStart':
      return hooks.sessionStart;
    case 'UserPromptSubmit':
      return hooks.userPromptSubmit;
    case 'PostToolUse':
    case 'PostToolUseFailure':
      return hooks.toolUse;
    case 'PreCompact':
      return hooks.preCompact;
    case 'PostCompact':
      return hooks.postCompact;
    case 'SessionEnd':
      return hooks.sessionEnd;
  }
}

/** Failures wmem reports itself (bad input, missing files); anything else also logs where it happened. */
const EXPECTED = new Set(['HookInputError', 'HookFailure', 'WmemError']);

const SILENT: CommandResult = { data: null, text: '' };

export async function run(options: HookOptions, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const started = Date.now();
  // The agent's protocol is the one output format: --json would print `null` on a silent answer.
  ctx.json = false;
  const eventArg = String(args[0] ?? '');
  const known = normalizeEvent(eventArg);
  const event = known ?? (eventArg.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 40) || 'unknown');
  let session: string | undefined;
  try {
    const input = parseHookInput(await readStdin(ctx.stdin, 'hook input'), eventArg);
    session = input.sessionId;
    const handler = await handlerFor(input.event);
    const result = await handler(input, ctx, options);
    await recordFired(ctx.home, { event, at: ctx.now().toISOString(), ok: true, session: result.session, ms: Date.now() - started, note: result.note });
    if (!result.output) return SILENT;
    return { data: result.output, text: JSON.stringify(result.output) };
  } catch (err) {
    const message = (err as Error)?.message ?? String(err);
    const unexpected = !EXPECTED.has((err as Error)?.name);
    await logHook(ctx.home, ctx.now(), event, 'error', unexpected ? `${message} ${(err as Error)?.stack?.split('\n').slice(1, 3).join(' ') ?? ''}` : message, session);
    if (known) await recordFired(ctx.home, { event, at: ctx.now().toISOString(), ok: false, session, ms: Date.now() - started, note: message });
    return SILENT;
  }
}
