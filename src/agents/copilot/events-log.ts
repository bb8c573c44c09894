// Pure: what a line of the GitHub Copilot CLI's session log,
// `<COPILOT_HOME>/session-state/<id>/events.jsonl`, says about the context (docs/hooks.md; the line
// shapes are in usage-lines.ts, which the report reads too). Settled against Copilot 1.0.102 and
// a Chat Completions mock (test/agents/copilot.test.ts):
// - each model call writes a `session.usage_record` whose `data.usage.inputTokens` is the API's
//   prompt tokens (cached ones included) and `maxPromptTokens` the prompt limit Copilot compacts
//   against (64,000 for gpt-4.1). The context in use is the last call's inputTokens: the figure
//   Copilot compares with that limit; `maxPromptTokens` is the window;
// - a `session.compaction_complete` with `success: true` ends a window (its compactionAttemptId
//   names the compaction); its `postCompactionTokens` is Copilot's own count of what is left.
//   The summary call's usage is inside that line, not a usage_record of its own.
import { markedUsageLines } from '../usage-lines.js';
import { COPILOT_USAGE } from './usage-lines.js';

export const copilotLine = markedUsageLines(COPILOT_USAGE);
