// Pure: text that tries to instruct the model that reads the memory. `remember` refuses it
// (workspace memory), and team entries read from git that hold it are never shown (docs/team.md).
// Notes and sections do not use it: they are the session's own, and quote prompts as work. A module of its
// own: the per-prompt render reads the team file, and must not build the workspace gate's other
// patterns (workspace-gate.ts) to do so.

// The last pattern is spelled \uXXXX (see workspace-gate.ts: one non-ASCII character makes a whole
// bundle a two-byte string). As written: 忽略(?:之前|以上|先前|所有)的?(?:指令|指示|说明|說明|提示)
const INJECTION = [
  /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier|preceding|your)\s+(?:instructions?|prompts?|rules|directions|messages?|context)\b/i,
  /\byou\s+are\s+now\s+(?:a|an|in)\b/i,
  /\b(?:new|updated)\s+system\s+prompt\b/i,
  /\bsystem\s*prompt\s*:/i,
  /<\/?\s*(?:system|assistant|instructions?)\s*>/i,
  /\b(?:act|behave)\s+as\s+if\s+(?:you\s+have\s+)?no\s+(?:rules|restrictions|guidelines)\b/i,
  /\u5ffd\u7565(?:\u4e4b\u524d|\u4ee5\u4e0a|\u5148\u524d|\u6240\u6709)\u7684?(?:\u6307\u4ee4|\u6307\u793a|\u8bf4\u660e|\u8aaa\u660e|\u63d0\u793a)/,
];

export const INJECTION_REASON = 'it tries to instruct the model that reads the memory ("ignore previous instructions" and the like)';

export function instructsModel(text: string): boolean {
  return INJECTION.some((p) => p.test(text));
}
