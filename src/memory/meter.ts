// Pure: the one meter of how full the agent's context is (docs/context.md). `wmem context`, `wmem status`
// and the agent hooks all come here with what they know, so they show the same figure and say
// where it came from. Nothing is guessed silently: a count that misses the agent's system prompt
// is an "estimate", a window nobody reported is a "default".
import { modelWindow } from './model-windows.js';

/** The context in use as the agent's transcript shows it (each adapter's reader gives one). */
export interface UsageView {
  /** Tokens of the last response since the last compaction, or null when none came since. */
  lastUsage: number | null;
  /** Identity of the last compaction the transcript records (stable across reads), if any. */
  boundary?: string;
  /** The model of the last response since the last compaction. */
  model?: string;
  /** The window the agent reported with its last usage, when it reports one. */
  window?: number;
  /** The agent's own count right after its last compaction, while no usage has come since. */
  afterCompaction?: number;
}

export const DEFAULT_WINDOW = 200_000;
const ONE_MILLION = 1_000_000;

/** Where tokens_used came from: a flag, a usage figure the agent reported, or a tokenizer count. */
export type TokensSource = 'flag' | 'usage' | 'estimate';
/** Where tokens_max came from (in that order of precedence). */
export type WindowSource = 'flag' | 'setting' | 'agent' | 'model' | 'default';

export interface WindowInputs {
  flag?: number;
  /** The user's setting (environment, install or init), with where it was set, for status. */
  setting?: number;
  /** A window the agent itself reports (Codex's model_context_window). */
  agentWindow?: number;
  /** The session's model, as the agent or the transcript names it. */
  model?: string;
  /** What the agent itself assumes while no model is known (Claude Code: its default model's window). */
  agentDefault?: number;
  /** The context in use the agent last reported: a model cannot hold more than its window. */
  reported?: number;
}

export interface WindowFigure {
  tokensMax: number;
  source: WindowSource;
  model?: string;
}

export function resolveWindow(inputs: WindowInputs): WindowFigure {
  const model = inputs.model ? { model: inputs.model } : {};
  if (inputs.flag) return { tokensMax: inputs.flag, source: 'flag', ...model };
  if (inputs.setting) return { tokensMax: inputs.setting, source: 'setting', ...model };
  if (inputs.agentWindow) return { tokensMax: inputs.agentWindow, source: 'agent', ...model };
  const known = modelWindow(inputs.model);
  // Anthropic's 1M-token variants ([1m]) answer under the base model's name: a context larger than
  // the base window is the proof that the session runs one.
  if (known && inputs.reported && inputs.reported > known && /^claude-/i.test(inputs.model ?? '')) return { tokensMax: ONE_MILLION, source: 'model', ...model };
  if (known) return { tokensMax: known, source: 'model', ...model };
  return { tokensMax: inputs.agentDefault ?? DEFAULT_WINDOW, source: 'default', ...model };
}

export type Pressure = 'safe' | 'moderate' | 'high';
export type ActionHint = 'normal' | 'light_compression' | 'medium_compression' | 'heavy_compression' | 'emergency_compression';

export function pressureFor(percent: number): Pressure {
  if (percent < 75) return 'safe';
  if (percent < 90) return 'moderate';
  return 'high';
}

export function actionHintFor(percent: number): ActionHint {
  if (percent < 20) return 'normal';
  if (percent < 40) return 'light_compression';
  if (percent < 60) return 'medium_compression';
  if (percent < 75) return 'heavy_compression';
  return 'emergency_compression';
}

/** The figures of the context_meta block, in the order they are printed. */
export interface MetaFigures {
  tokens_used: number;
  tokens_max: number;
  tokens_percent: number;
  tokens_source: TokensSource;
  tokens_max_source: WindowSource;
  model?: string;
  messages_in_history: number;
  working_memory_size: number;
  action_hint: ActionHint;
  pressure: Pressure;
  overview_maintained: boolean;
}

export interface MeterInputs {
  tokensUsed: number;
  tokensSource: TokensSource;
  window: WindowFigure;
  messages: number;
  memorySize: number;
  maintained: boolean;
}

export function metaFigures(input: MeterInputs): MetaFigures {
  const { tokensMax, source, model } = input.window;
  // Hints and pressure follow the exact share; only the displayed percentage is rounded.
  const exact = tokensMax > 0 ? (input.tokensUsed / tokensMax) * 100 : 0;
  return {
    tokens_used: input.tokensUsed,
    tokens_max: tokensMax,
    tokens_percent: Math.round(exact),
    tokens_source: input.tokensSource,
    tokens_max_source: source,
    ...(model ? { model } : {}),
    messages_in_history: input.messages,
    working_memory_size: input.memorySize,
    action_hint: actionHintFor(exact),
    pressure: pressureFor(exact),
    overview_maintained: input.maintained,
  };
}

/** The budget of the memory part for a window (docs/context.md). */
export function budgetForTokensMax(tokensMax: number): number {
  if (tokensMax >= 200_000) return 8000;
  if (tokensMax >= 128_000) return 6000;
  if (tokensMax >= 64_000) return 4000;
  return 3200;
}
