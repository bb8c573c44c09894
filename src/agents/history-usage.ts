// The usage rules of wmem's own history file (messages.jsonl and its archives): the line formats
// `wmem compact` reads (history/model/lines.ts: Claude Code transcripts, Codex rollouts, plain chat
// with Kimi's `_usage`), tried in turn. Kept apart from the registry so that `wmem context`,
// which reads the history's figures on every prompt, loads three small rules and no adapter.
import { anyOf, PLAIN_USAGE } from '../history/model/usage.js';
import { CLAUDE_USAGE } from './claude/usage-lines.js';
import { CODEX_USAGE } from './codex/usage-lines.js';

export const HISTORY_USAGE = anyOf([CLAUDE_USAGE, CODEX_USAGE, PLAIN_USAGE]);
