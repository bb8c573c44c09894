// Kilo Code's hook part (adapter.ts's AgentHook): OpenCode's (events, answers, token use from the
// messages the plugin passes), under its own names, its input read as the plugin's for `--agent kilo`.
import type { AgentHook } from '../adapter.js';
import { opencodeHook } from '../opencode/hook.js';
import { parseOpenCodeInput } from '../opencode/protocol.js';
import { KILO_NAMES } from './names.js';

export const kiloHook: AgentHook = {
  ...opencodeHook,
  ...KILO_NAMES,
  parseInput: (text, event) => parseOpenCodeInput(text, event, 'kilo'),
};
