// Pure (given the template's text): wmem's OpenCode plugin file (SPEC §10.4). OpenCode loads every
// `.opencode/plugin/*.ts` of the project and of `$XDG_CONFIG_HOME/opencode/plugin/` (default
// ~/.config/opencode/plugin/); wmem's is `wmem.ts`, rendered from templates/opencode-plugin.ts with
// the command that reaches this wmem. Its first line marks it as wmem's: install rewrites only a
// file carrying the mark (a user's own wmem.ts is refused, exit 2), uninstall removes only such a
// file, and nothing else in OpenCode's config is ever touched.
import os from 'node:os';
import path from 'node:path';
import { defaultHome } from '../../store/names.js';
import { ConfigShapeError, type ConfigPlan, type ConfigStatus, type InstallRequest, type Scope } from '../adapter.js';

export const PLUGIN_MARK = '// wmem:opencode-plugin';
export const PLUGIN_EVENT = 'plugin';

/**
 * The agent a rendering of the plugin serves: OpenCode, or a fork with its plugin API (Kilo Code).
 * The fork's copy carries its own mark (`// wmem:kilo-plugin`), runs `wmem hook --agent <id>` and
 * logs to `<id>-plugin.log`.
 */
export interface PluginHost {
  id: string;
  mark: string;
}

export const OPENCODE_HOST: PluginHost = { id: 'opencode', mark: PLUGIN_MARK };

export function opencodeConfigDir(env: NodeJS.ProcessEnv): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'opencode');
}

export function opencodePluginFile(scope: Scope, place: { cwd: string; env: NodeJS.ProcessEnv }): string {
  if (scope === 'user') return path.join(opencodeConfigDir(place.env), 'plugin', 'wmem.ts');
  return path.join(path.resolve(place.cwd), '.opencode', 'plugin', 'wmem.ts');
}

export function isWmemPlugin(text: string | undefined, host: PluginHost = OPENCODE_HOST): boolean {
  return text !== undefined && text.startsWith(host.mark);
}

/** The template with this install's command, agent, hook flags and log file filled in. */
export function renderPlugin(template: string, request: InstallRequest, host: PluginHost = OPENCODE_HOST): string {
  if (!template.startsWith(PLUGIN_MARK)) throw new Error('the OpenCode plugin template lacks its wmem mark');
  const log = path.join(request.home ?? defaultHome(process.env), 'logs', `${host.id}-plugin.log`);
  const tail = request.tokensMax ? ` --tokens-max ${request.tokensMax}` : '';
  const mine = host === OPENCODE_HOST ? template : host.mark + template.slice(PLUGIN_MARK.length, template.indexOf('\n')).replace(/\bopencode\b/g, host.id) + template.slice(template.indexOf('\n'));
  return mine
    .replace('__WMEM_COMMAND__', () => JSON.stringify(request.command))
    .replace('__WMEM_AGENT__', () => JSON.stringify(host.id))
    .replace('__WMEM_TAIL__', () => JSON.stringify(tail))
    .replace('__WMEM_LOG__', () => JSON.stringify(log));
}

/** The command an installed plugin runs (`const WMEM = "…";`), if the file is wmem's. */
export function pluginCommand(text: string | undefined, host: PluginHost = OPENCODE_HOST): string | undefined {
  if (!isWmemPlugin(text, host)) return undefined;
  const m = /^const WMEM = ("(?:[^"\\]|\\.)*");$/m.exec(text!);
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]) as string;
  } catch {
    return undefined;
  }
}

function notOurs(file: string, host: PluginHost): ConfigShapeError {
  return new ConfigShapeError(`${file} is not wmem's plugin (it lacks the '${host.mark}' first line); left untouched`, 'rename your own plugin file, or install into the other scope (--scope user|project)');
}

export function planPluginInstall(file: string, text: string | undefined, request: InstallRequest, template: string, host: PluginHost = OPENCODE_HOST, displayName = 'OpenCode'): ConfigPlan {
  if (text !== undefined && !isWmemPlugin(text, host)) throw notOurs(file, host);
  const after = renderPlugin(template, request, host);
  const changed = after !== text;
  const notes = [`${displayName} loads the plugin when it starts: restart running ${displayName} sessions.`];
  return { file, before: text, after, changed, events: changed ? [PLUGIN_EVENT] : [], notes, preview: { plugin: file, command: request.command } };
}

export function planPluginUninstall(file: string, text: string | undefined, host: PluginHost = OPENCODE_HOST): ConfigPlan {
  if (!isWmemPlugin(text, host)) {
    const notes = text === undefined ? [] : [`${file} is not wmem's plugin: left in place`];
    return { file, before: text, after: text ?? '', changed: false, events: [], removed: 0, notes };
  }
  return { file, before: text, after: '', remove: true, changed: true, events: [], removed: 1, notes: [] };
}

export function diagnosePlugin(scope: Scope, file: string, text: string | undefined, template: string | undefined, host: PluginHost = OPENCODE_HOST): ConfigStatus {
  const base = { scope, file, exists: text !== undefined, problems: [] as string[] };
  if (!isWmemPlugin(text, host)) return { ...base, installed: [], missing: [PLUGIN_EVENT], ...(text !== undefined ? { problems: [`${file} is not wmem's plugin`] } : {}) };
  const command = pluginCommand(text, host);
  const problems: string[] = [];
  if (!command) problems.push(`${file} names no wmem command: run 'wmem install ${host.id} --scope ${scope}'`);
  // The version is the first line's word after the mark (`v2`); the rest names the host's command.
  const version = (s: string | undefined) => /^\/\/ wmem:[a-z]+-plugin (\S+)/.exec(s ?? '')?.[1];
  if (template && version(template) !== version(text)) problems.push(`${file} is an older wmem plugin: run 'wmem install ${host.id} --scope ${scope}'`);
  return { ...base, installed: [PLUGIN_EVENT], missing: [], ...(command ? { command } : {}), problems };
}
