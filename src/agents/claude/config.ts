// Pure: install, uninstall and diagnose of Claude Code's settings files as plans over their text
// (the JSON merging itself is in settings.ts). A file that does not parse, or whose hooks are not
// the shape Claude Code reads, is refused by name: the install use case then leaves it untouched.
import os from 'node:os';
import path from 'node:path';
import { ConfigShapeError, type AgentConfig, type ConfigPlace, type ConfigPlan, type ConfigStatus, type Scope } from '../adapter.js';
import { detectIndent, formatSettings, installedHooks, mergeWmemHooks, removeWmemHooks, SettingsShapeError, wmemPrefix, type Settings } from './settings.js';
import { jsonBreak } from '../../ui/errors.js';

const HINT = 'fix that file (or move it away) and run the command again';

export function claudeSettingsFile(scope: Scope, cwd: string, env: NodeJS.ProcessEnv): string {
  if (scope === 'user') return path.join(env.CLAUDE_CONFIG_DIR || path.join(os.homedir(), '.claude'), 'settings.json');
  return path.join(path.resolve(cwd), '.claude', scope === 'local' ? 'settings.local.json' : 'settings.json');
}

interface Parsed {
  settings: Settings;
  indent: string | number;
}

/** Throws ConfigShapeError (with the fix in `hint`) for a file that is not a JSON object. */
export function parseSettings(file: string, text: string | undefined): Parsed {
  if (text === undefined || !text.trim()) return { settings: {}, indent: 2 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw shapeError(`${file} is not valid JSON (${jsonBreak(err, text)}); left untouched`, HINT);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw shapeError(`${file} does not hold a JSON object; left untouched`, HINT);
  return { settings: parsed as Settings, indent: detectIndent(text) };
}

function shapeError(message: string, hint: string): ConfigShapeError {
  return Object.assign(new ConfigShapeError(message), { hint });
}

/** Runs a settings.ts change, turning a hooks shape problem into the same refusal as a parse error. */
function shaped<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof SettingsShapeError) throw shapeError(`${file}: ${err.message}; left untouched`, 'fix that file and run the command again');
    throw err;
  }
}

export const claudeConfig: AgentConfig = {
  scopes: ['project', 'local', 'user'],
  defaultScope: 'project',
  file: (scope: Scope, place: ConfigPlace) => claudeSettingsFile(scope, place.cwd, place.env),

  planInstall(file, text, request): ConfigPlan {
    const { settings, indent } = parseSettings(file, text);
    const merged = shaped(file, () => mergeWmemHooks(settings, request.command, undefined, request.tokensMax));
    const after = merged.changed ? formatSettings(merged.settings, indent) : text || formatSettings(settings, indent);
    return { file, before: text, after, changed: merged.changed, events: merged.events, notes: [], preview: merged.settings };
  },

  planUninstall(file, text): ConfigPlan {
    const { settings, indent } = parseSettings(file, text);
    const removed = shaped(file, () => removeWmemHooks(settings));
    const after = formatSettings(removed.settings, indent);
    return { file, before: text, after: removed.changed ? after : text ?? after, changed: removed.changed, events: [], removed: removed.removed, notes: [], preview: removed.settings };
  },

  diagnose(scope, file, text): ConfigStatus {
    let parsed: Parsed;
    try {
      parsed = parseSettings(file, text);
    } catch (err) {
      return { scope, file, exists: true, error: (err as Error).message, installed: [], missing: installedHooks({}).map((h) => h.event), problems: [] };
    }
    const found = installedHooks(parsed.settings);
    const installed = found.filter((f) => f.installed).map((f) => f.event);
    const missing = found.filter((f) => !f.installed).map((f) => f.event);
    const problems = installed.length && missing.length ? [`${file} lacks ${missing.join(', ')}: run 'wmem install claude --scope ${scope}'`] : [];
    return { scope, file, exists: text !== undefined, installed, missing, command: found.find((f) => f.command)?.command, problems };
  },

  commandPrefix: wmemPrefix,
};
