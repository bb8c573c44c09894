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

// Newest first where ids overlap: the first match wins.
const RULES: WindowRule[] = [
  // Anthropic. Opus 4.6 and later, and Sonnet 4.6 and later, have a 1M-token window natively.
  { pattern: /^claude-(?:opus|sonnet)-4-(?:[6-9]|\d\d)(?:\b|-)/, window: 1_000_000 },
  { pattern: /^claude-(?:opus|sonnet)-(?:[5-9]|\d\d)(?:\b|-)/, window: 1_000_000 },
  { pattern: /^claude-/, window: 200_000 },
  // Claude Code's aliases.
  { pattern: /^(?:opus|sonnet)$/, window: 1_000_000 },
  { pattern: /^haiku$/, window: 200_000 },
  // OpenAI.
  { pattern: /^gpt-5(?:\.\d+)?(?:-codex)?(?:-(?:mini|max|nano))?(?:\b|-)/, window: 400_000 },
  { pattern: /^gpt-4\.1/, window: 1_047_576 },
  { pattern: /^(?:gpt-4o|o[134])(?:\b|-)/, window: 200_000 },
  // Google.
  { pattern: /^gemini-(?:[2-9])(?:\.\d+)?-(?:pro|flash)/, window: 1_048_576 },
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
