// Kilo Code's hook part (adapter.ts's AgentHook): OpenCode's (events, answers, token use from the
// messages the plugin passes), under its own names, its input read as the plugin's for `--agent kilo`.
import type { AgentHook, HookInput } from '../adapter.js';
import { opencodeHook } from '../opencode/hook.js';
import { parseOpenCodeInput } from '../opencode/protocol.js';
import { KILO_NAMES } from './names.js';

/**
 * Kilo names the call that writes a session's title `title-<session id>` (its `titleID`, checked
 * on 7.7.9), and its system.transform fires for that call as for the session's own. It is a side
 * call of the session: no session of its own, no memory part, and never the project's current
 * session (it may run after the session's last prompt).
 */
const TITLE_CALL = /^title-(ses_[A-Za-z0-9]+)$/;

/** A title call's input as its session's side chain (app/hook.ts answers those); any other as it is. */
export function asSideCall(input: HookInput): HookInput {
  const owner = input.sessionId && TITLE_CALL.exec(input.sessionId)?.[1];
  return owner ? { ...input, sessionId: owner, subagent: true } : input;
}

export const kiloHook: AgentHook = {
  ...opencodeHook,
  ...KILO_NAMES,
  parseInput: (text, event) => asSideCall(parseOpenCodeInput(text, event, 'kilo')),
};
