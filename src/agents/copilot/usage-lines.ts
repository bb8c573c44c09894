// Pure: GitHub Copilot CLI's events.jsonl lines as usage. Each model call's `inputTokens` (the
// API's prompt tokens, cached inside; what Copilot compares with its prompt limit
// `maxPromptTokens`), and a successful `session.compaction_complete`.
import { boundaryOf, num, usageOf, type UsageLines } from '../../history/model/usage.js';
import { isObject } from '../../ui/json.js';

export const COPILOT_USAGE: UsageLines = {
  marks: ['"session.usage_record"', '"session.compaction_complete"'],
  event(value) {
    if (!isObject(value) || !isObject(value.data)) return undefined;
    const data = value.data;
    if (value.type === 'session.usage_record') return isObject(data.usage) ? usageOf(num(data.usage.inputTokens), num(data.usage.maxPromptTokens), data.usage.model) : undefined;
    if (value.type === 'session.compaction_complete') return data.success === true ? boundaryOf(num(data.postCompactionTokens), data.compactionAttemptId) : undefined;
    return undefined;
  },
};
