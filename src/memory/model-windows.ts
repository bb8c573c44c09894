// Pure: the context window of a model, from its id. Agents report the model they run on (Claude
// Code's hook input and transcript, Codex's turn context, Gemini's chat file); the window is what
// the meter measures against. A `[1m]` suffix (Claude Code's way of asking for the 1M-token
// context) means 1,000,000 whatever the base model. Unknown ids return undefined: the meter then
// says that it assumed a default rather than pretend to know.

interface WindowRule {
  /** Matched against the lower-cased id without its `[…]` suffix and any provider prefix. */
  pattern: RegExp;
  window: number;
}

// Newest first where ids overlap: the first match wins. Anthropic's figures are the ones Claude
// Code 2.1.328 reports for each model (its `modelUsage[model].contextWindow`).
const RULES: WindowRule[] = [
  // Anthropic: the 5 family has a 1M-token window; 4.x and 3.x have 200K (1M only with [1m]).
  { pattern: /^claude-(?:opus|sonnet|haiku)-(?:[5-9]|\d\d)(?:[-.]|$)/, window: 1_000_000 },
  { pattern: /^claude-(?:(?:opus|sonnet|haiku)-[34]|[34](?:-\d)?-(?:opus|sonnet|haiku))(?:[-.]|$)/, window: 200_000 },
  // Claude Code's aliases name the current (5.x) models.
  { pattern: /^(?:opus|sonnet|haiku|best|default)$/, window: 1_000_000 },
  // OpenAI.
  { pattern: /^gpt-5(?:\.\d+)?(?:-codex)?(?:-(?:mini|max|nano))?(?:[-.]|$)/, window: 400_000 },
  { pattern: /^gpt-4\.1(?:[-.]|$)/, window: 1_047_576 },
  { pattern: /^(?:gpt-4o|o[134])(?:[-.]|$)/, window: 200_000 },
  // Google.
  { pattern: /^gemini-[2-9](?:\.\d+)?-(?:pro|flash)/, window: 1_048_576 },
];

/** `anthropic/claude-sonnet-4-5[1m]` → `{ base: 'claude-sonnet-4-5', oneMillion: true }`. */
function normalize(model: string): { base: string; oneMillion: boolean } {
  const lower = model.trim().toLowerCase();
  const oneMillion = /\[1m\]$/.test(lower);
  const base = lower.replace(/\[[^\]]*\]$/, '').replace(/^.*\//, '');
  return { base, oneMillion };
}

/** The model's context window in tokens, or undefined when wmem does not know the model. */
export function modelWindow(model: string | undefined): number | undefined {
  if (!model) return undefined;
  const { base, oneMillion } = normalize(model);
  if (oneMillion) return 1_000_000;
  return RULES.find((rule) => rule.pattern.test(base))?.window;
}
