// Pure: the context window Gemini CLI itself assumes for a model (its `tokenLimit`, 0.61.0): the
// figure it compresses against (at half of it by default). Gemini CLI 0.61 gives every Gemini model
// 1,048,576 tokens and the Gemma 4 models 256,000. A model not in this table gets no window here:
// the meter then says it assumed a default (`tokens_max_source: "default"`) rather than pretend.
const GEMINI_WINDOWS: { pattern: RegExp; window: number }[] = [
  { pattern: /^gemma-4-(?:31b|26b-a4b)-it$/, window: 256_000 },
  { pattern: /^gemini-(?:[2-9](?:\.\d+)?)-(?:pro|flash)(?:-lite)?(?:-preview)?(?:-[\w.-]+)?$/, window: 1_048_576 },
  // Gemini CLI's aliases (`-m auto`, `-m pro`, `-m flash`, `-m flash-lite`) resolve to the models above.
  { pattern: /^(?:auto|pro|flash|flash-lite)$/, window: 1_048_576 },
];

/** Gemini CLI's own window for `model`, or undefined when the model is not one it knows. */
export function geminiWindow(model: string | undefined): number | undefined {
  if (!model) return undefined;
  const id = model.trim().toLowerCase().replace(/^models\//, '');
  return GEMINI_WINDOWS.find((rule) => rule.pattern.test(id))?.window;
}

/** The window Gemini CLI 0.61 uses for any model it has no entry for (DEFAULT_TOKEN_LIMIT). */
export const GEMINI_DEFAULT_WINDOW = 1_048_576;
