// Codex CLI (docs/hooks.md, checked on 0.169.0): hooks in $CODEX_HOME/hooks.json or the project's
// .codex/hooks.json, run only once the user trusts them; the answer in
// hookSpecificOutput.additionalContext (a developer message); token use, window and compactions
// from the rollout; a command's exit code from the rollout too (PostToolUse carries none).
import path from 'node:path';
import { userHome, type AgentAdapter, type AgentConfig, type ConfigStatus, type HookInput } from '../adapter.js';
import { CODEX_HOOKS, codexCommandPrefix, codexHome, codexHooksFile, installedCodexHooks, parseHooksFile, planCodexInstall, planCodexUninstall } from './hooks-config.js';
import { CODEX_CONTEXT_CAP, CODEX_EVENTS, codexAnswer, codexEvent, codexToolEvent, parseCodexInput, withOutcome } from './protocol.js';
import { trustProblems } from './trust.js';
import { CODEX_NAMES } from './names.js';

const config: AgentConfig = {
  scopes: ['user', 'project'],
  defaultScope: 'user',
  file: codexHooksFile,
  // Trust lives in the user's config.toml whichever hooks file the entries are in.
  related: (_scope, place) => [path.join(codexHome(place.env), 'config.toml')],
  planInstall: planCodexInstall,
  planUninstall: planCodexUninstall,
  diagnose(scope, file, text, related): ConfigStatus {
    const all = CODEX_HOOKS.map((h) => h.event);
    let json: Record<string, unknown>;
    try {
      json = parseHooksFile(file, text).json;
    } catch (err) {
      return { scope, file, exists: true, error: (err as Error).message, installed: [], missing: all, problems: [] };
    }
    const found = installedCodexHooks(file, json);
    const installed = found.filter((f) => f.installed).map((f) => f.event);
    const missing = found.filter((f) => !f.installed).map((f) => f.event);
    const problems: string[] = [];
    if (installed.length && missing.length) problems.push(`${file} lacks ${missing.join(', ')}: run 'wmem install codex --scope ${scope}'`);
    const [configFile] = Object.keys(related);
    if (installed.length && configFile) problems.push(...trustProblems(scope, file, found, configFile, related[configFile]));
    return { scope, file, exists: text !== undefined, installed, missing, command: found.find((f) => f.command)?.command, problems };
  },
  commandPrefix: codexCommandPrefix,
};

export const codex: AgentAdapter = {
  ...CODEX_NAMES,
  events: CODEX_EVENTS,
  eventFor: codexEvent,
  parseInput: (text, event) => parseCodexInput(text, event),
  // PostCompact carries no summary: the rollout's compacted line, written just before, has it.
  async completeInput(input: HookInput): Promise<HookInput> {
    if (input.moment !== 'after-compact' || input.summary || !input.transcriptPath) return input;
    try {
      const { findCompactionSummary } = await import('./rollout-file.js');
      const summary = await findCompactionSummary(input.transcriptPath);
      return summary ? { ...input, summary } : input;
    } catch {
      return input;
    }
  },
  // PostToolUse carries no exit code: the rollout's finished command, written just before, has it.
  toolEvent: async (input, root) => codexToolEvent(await withRolloutOutcome(input), root),
  answer: { contextCap: CODEX_CONTEXT_CAP, answer: codexAnswer },
  transcript: {
    async read(file, previous) {
      const { readRolloutUsage } = await import('./rollout-file.js');
      return readRolloutUsage(file, previous);
    },
  },
  // Codex 0.169 reports 258,400 tokens for the gpt-5 models it knows (model_context_window).
  defaultWindow: 258_400,
  compactCommand: '/compact',
  usageLines: async () => (await import('./usage-lines.js')).CODEX_USAGE,
  config,
  mcp: {
    scopes: ['user', 'project'],
    defaultScope: 'user',
    // Codex reads a project's .codex/ layer too (once the project is trusted).
    file: (scope, { cwd, env }) => path.join(scope === 'project' ? path.join(path.resolve(cwd), '.codex') : env.CODEX_HOME || path.join(userHome(env), '.codex'), 'config.toml'),
    shape: { format: 'toml', table: 'mcp_servers' },
  },
};

/** The input with its command's outcome from the rollout (tool-failed on a non-zero exit). */
export async function withRolloutOutcome(input: HookInput): Promise<HookInput> {
  if (!input.transcriptPath || !input.tool?.id) return input;
  try {
    const { findCommandOutcome } = await import('./rollout-file.js');
    return withOutcome(input, await findCommandOutcome(input.transcriptPath, input.tool.id));
  } catch {
    // No rollout to read: the command is tracked without an exit code (it opens and clears nothing).
    return input;
  }
}
