// Pure: wmem's entries in a Gemini CLI settings.json (docs/hooks.md): `~/.gemini/settings.json`
// (user; `$GEMINI_CLI_HOME/.gemini` when set) or the project's `.gemini/settings.json`, shaped
// `{"hooks":{"<Event>":[{"matcher"?, "hooks":[{"type":"command","command","name","timeout" (ms)}]}]}}`.
// The shared hooks-file planner does the merging; wmem's entries are recognised by their command
// (`… wmem … hook --agent gemini EVENT`). No matcher: Gemini 0.61 compares a matcher on a non-tool event with the
// event's source or trigger and then skips the hook; without one AfterTool fires for every tool.
// Gemini reads settings.json with comments stripped; wmem refuses a file it cannot parse as JSON
// (comments included) rather than drop them.
import os from 'node:os';
import path from 'node:path';
import type { ConfigPlace, Scope } from '../adapter.js';
import { hookCommandRule } from '../hook-command.js';
import { hooksFile, type HookSpec } from '../hooks-file.js';
import { isObject } from '../../ui/json.js';

/** Timeouts in milliseconds (Gemini's default is 60,000). */
export const GEMINI_HOOKS: readonly HookSpec[] = [
  { event: 'SessionStart', timeout: 10_000 },
  { event: 'BeforeAgent', timeout: 10_000 },
  { event: 'AfterTool', timeout: 10_000 },
  { event: 'PreCompress', timeout: 60_000 },
  { event: 'SessionEnd', timeout: 10_000 },
];

export const PROJECT_TRUST_NOTE =
  "Gemini CLI loads a project's hooks only in a trusted folder: trust it when Gemini asks (or with /permissions), or install for your user instead: 'wmem install gemini --scope user'.";

type Json = Record<string, unknown>;

/** Gemini's home folder: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
export function geminiDir(env: NodeJS.ProcessEnv): string {
  return path.join(env.GEMINI_CLI_HOME || os.homedir(), '.gemini');
}

export function geminiSettingsFile(scope: Scope, place: ConfigPlace): string {
  if (scope === 'user') return path.join(geminiDir(place.env), 'settings.json');
  return path.join(path.resolve(place.cwd), '.gemini', 'settings.json');
}

const HOOK_COMMAND = hookCommandRule('gemini');
export const isWmemGeminiCommand = HOOK_COMMAND.isWmem;
/** What runs wmem in an installed command, without `hook --agent gemini EVENT`. */
export const geminiCommandPrefix = HOOK_COMMAND.prefixOf;
export const geminiHookCommand = HOOK_COMMAND.command;

/** The name Gemini shows for the hook (and that `hooksConfig.disabled` can list). */
export function geminiHookName(event: string): string {
  return `wmem-${event.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}`;
}

/** The user's settings file is the one in Gemini's home folder; any other is a project's. */
function isUserSettings(file: string): boolean {
  return path.resolve(file) === path.join(geminiDir(process.env), 'settings.json');
}

const HOOKS_FILE = hooksFile({
  agent: 'gemini',
  hooks: GEMINI_HOOKS,
  isWmem: isWmemGeminiCommand,
  handler: (spec, prefix, tokensMax) => ({ type: 'command', command: geminiHookCommand(prefix, spec.event, tokensMax), name: geminiHookName(spec.event), timeout: spec.timeout }),
  keepNonLists: true,
  groupNoun: 'hook definition',
  explainComments: true,
  notes: (file) => (isUserSettings(file) ? [] : [PROJECT_TRUST_NOTE]),
});

export const planGeminiUninstall = HOOKS_FILE.planUninstall;
export const diagnoseGeminiHooks = HOOKS_FILE.diagnose;

/** `scope` says which trust note goes with it (the planner tells it from the file). */
export function planGeminiInstall(file: string, text: string | undefined, request: Parameters<typeof HOOKS_FILE.planInstall>[2], scope?: Scope) {
  const plan = HOOKS_FILE.planInstall(file, text, request);
  return scope === undefined ? plan : { ...plan, notes: scope === 'project' ? [PROJECT_TRUST_NOTE] : [] };
}

export interface InstalledGeminiHook {
  event: string;
  installed: boolean;
  command?: string;
  name?: string;
}

/** Which of wmem's events the settings have, with the command and name of each. */
export function installedGeminiHooks(json: Json): InstalledGeminiHook[] {
  return HOOKS_FILE.installed(json).map(({ event, installed, command, handler }) =>
    installed ? { event, installed, command, ...(typeof handler?.name === 'string' ? { name: handler.name } : {}) } : { event, installed },
  );
}

/** The names `hooksConfig.disabled` lists (Gemini skips those hooks), and whether hooks are off altogether. */
export function disabledHooks(json: Json): { all: boolean; names: string[] } {
  const config = isObject(json.hooksConfig) ? json.hooksConfig : {};
  const names = Array.isArray(config.disabled) ? config.disabled.filter((n): n is string => typeof n === 'string') : [];
  return { all: config.enabled === false, names };
}
