// Pure: wmem's hooks file for the GitHub Copilot CLI (docs/hooks.md). Copilot loads every
// `*.json` of `<COPILOT_HOME>/hooks/` (user; `~/.copilot` by default) and of the repository's
// `.github/hooks/`, shaped `{"version":1,"hooks":{"<event>":[{"type":"command","bash","timeoutSec"}]}}`.
// wmem's is `wmem.json` and holds nothing but wmem's entries (recognised by their command), so
// install writes it whole, uninstall removes it whole (the folder is as before, byte for byte),
// and a `wmem.json` holding anything else is the user's: refused, never touched.
// Repository hooks run in `-p` mode only once the folder is trusted (`--trust-folder`, or the
// trust prompt of an interactive session).
import path from 'node:path';
import { ConfigShapeError, type ConfigPlan, type ConfigPlace, type ConfigStatus, type InstallRequest, type Scope } from '../adapter.js';
import { hookCommandRule } from '../hook-command.js';
import { isObject } from '../../ui/json.js';
import { copilotDir } from './protocol.js';

/** The events wmem installs, with Copilot's timeout for each (seconds). */
export const COPILOT_HOOKS: readonly { event: string; timeoutSec: number }[] = [
  { event: 'sessionStart', timeoutSec: 10 },
  { event: 'userPromptSubmitted', timeoutSec: 10 },
  { event: 'postToolUse', timeoutSec: 10 },
  { event: 'postToolUseFailure', timeoutSec: 10 },
  { event: 'preCompact', timeoutSec: 60 },
  { event: 'sessionEnd', timeoutSec: 10 },
];

export const PROJECT_TRUST_NOTE =
  "GitHub Copilot CLI runs a repository's hooks only in a trusted folder: trust it when Copilot asks (or run it once with --trust-folder), or install for your user instead: 'wmem install copilot --scope user'.";

const HOOK_COMMAND = hookCommandRule('copilot');
export const copilotCommandPrefix = HOOK_COMMAND.prefixOf;

export function copilotHooksFile(scope: Scope, place: ConfigPlace): string {
  if (scope === 'user') return path.join(copilotDir(place.env), 'hooks', 'wmem.json');
  return path.join(path.resolve(place.cwd), '.github', 'hooks', 'wmem.json');
}

type Json = Record<string, unknown>;

/** The file's entries per event, or why it is not wmem's file (undefined text: no file). */
function readOurs(file: string, text: string | undefined): { entries: Map<string, Json>; foreign?: string } {
  const entries = new Map<string, Json>();
  if (text === undefined || !text.trim()) return { entries };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { entries, foreign: `${file} is not JSON wmem wrote` };
  }
  if (!isObject(json) || !isObject(json.hooks)) return { entries, foreign: `${file} has no "hooks" object` };
  for (const [event, list] of Object.entries(json.hooks)) {
    const handlers = Array.isArray(list) ? list : [];
    const mine = handlers.filter((h): h is Json => isObject(h) && HOOK_COMMAND.isWmem(h.bash));
    if (!Array.isArray(list) || mine.length !== handlers.length || mine.length !== 1) return { entries, foreign: `${file} holds hooks that are not wmem's (${event})` };
    entries.set(event, mine[0]);
  }
  return { entries };
}

function notOurs(reason: string): ConfigShapeError {
  return new ConfigShapeError(`${reason}; left untouched`, 'rename your own hooks file (Copilot loads every *.json of that folder), or install into the other scope (--scope user|project)');
}

export function renderHooksFile(request: InstallRequest): string {
  const hooks: Record<string, Json[]> = {};
  for (const { event, timeoutSec } of COPILOT_HOOKS) hooks[event] = [{ type: 'command', bash: HOOK_COMMAND.command(request.command, event, request.tokensMax), timeoutSec }];
  return JSON.stringify({ version: 1, hooks }, null, 2) + '\n';
}

export function planCopilotInstall(file: string, text: string | undefined, request: InstallRequest, scope: Scope): ConfigPlan {
  const { foreign } = readOurs(file, text);
  if (foreign) throw notOurs(foreign);
  const after = renderHooksFile(request);
  const changed = after !== text;
  const notes = scope === 'project' ? [PROJECT_TRUST_NOTE] : [];
  return { file, before: text, after, changed, events: changed ? COPILOT_HOOKS.map((h) => h.event) : [], notes, preview: JSON.parse(after) };
}

export function planCopilotUninstall(file: string, text: string | undefined): ConfigPlan {
  const { entries, foreign } = readOurs(file, text);
  if (text === undefined || foreign || !entries.size) {
    const notes = foreign ? [`${foreign}: left in place`] : [];
    return { file, before: text, after: text ?? '', changed: false, events: [], removed: 0, notes };
  }
  return { file, before: text, after: '', remove: true, changed: true, events: [], removed: entries.size, notes: [] };
}

export function diagnoseCopilot(scope: Scope, file: string, text: string | undefined): ConfigStatus {
  const all = COPILOT_HOOKS.map((h) => h.event);
  const base = { scope, file, exists: text !== undefined };
  const { entries, foreign } = readOurs(file, text);
  if (foreign) return { ...base, error: foreign, installed: [], missing: all, problems: [] };
  const installed = all.filter((e) => entries.has(e));
  const missing = all.filter((e) => !entries.has(e));
  const problems: string[] = [];
  if (installed.length && missing.length) problems.push(`${file} lacks ${missing.join(', ')}: run 'wmem install copilot --scope ${scope}'`);
  // Whether Copilot trusts the folder is in its own store, not a file wmem can read: install says so.
  const first = entries.values().next().value;
  return { ...base, installed, missing, ...(first ? { command: String(first.bash) } : {}), problems };
}
