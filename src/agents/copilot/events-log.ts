// Pure: what a line of the GitHub Copilot CLI's session log,
// `<COPILOT_HOME>/session-state/<id>/events.jsonl`, says about the context (docs/hooks.md).
// Settled against Copilot 1.0.102 and a Chat Completions mock (test/agents/copilot.test.ts):
// - each model call writes a `session.usage_record` whose `data.usage.inputTokens` is the API's
//   prompt tokens (cached ones included) and `maxPromptTokens` the prompt limit Copilot compacts
//   against (64,000 for gpt-4.1). The context in use is the last call's inputTokens: the figure
//   Copilot compares with that limit; `maxPromptTokens` is the window;
// - a `session.compaction_complete` with `success: true` ends a window (its compactionAttemptId
//   names the compaction); its `postCompactionTokens` is Copilot's own count of what is left.
//   The summary call's usage is inside that line, not a usage_record of its own.
import { parseJsonLine } from '../../history/lines.js';
import { isObject } from '../../ui/json.js';
import { positive, type UsageLine } from '../usage-lines.js';

export function copilotLine(line: string, offset: number): UsageLine {
  if (!line.includes('"session.usage_record"') && !line.includes('"session.compaction_complete"')) return undefined;
  const value = parseJsonLine(line);
  if (!isObject(value) || !isObject(value.data)) return undefined;
  const data = value.data;
  if (value.type === 'session.compaction_complete') {
    if (data.success !== true) return undefined;
    const id = typeof data.compactionAttemptId === 'string' && data.compactionAttemptId ? data.compactionAttemptId : `@${offset}`;
    const after = positive(data.postCompactionTokens);
    return { kind: 'boundary', id, ...(after ? { after } : {}) };
  }
  if (value.type !== 'session.usage_record' || !isObject(data.usage)) return undefined;
  const tokens = positive(data.usage.inputTokens);
  if (!tokens) return undefined;
  const window = positive(data.usage.maxPromptTokens);
  const model = typeof data.usage.model === 'string' && data.usage.model ? data.usage.model : undefined;
  return { kind: 'usage', tokens, ...(window ? { window } : {}), ...(model ? { model } : {}) };
}
