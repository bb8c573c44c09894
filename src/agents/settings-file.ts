// Where Claude Code's settings files are and how wmem reads and rewrites them: a file that does
// not parse is refused by name and left untouched; a rewrite is atomic, keeps the file's mode
// and indentation, and happens under a lock kept in wmem's home (not in the user's .claude/).
import { createHash } from 'node:crypto';
import { existsSync, promises as fs, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { atomicWrite, ensureDir, readTextIfExists, withLock } from '../store/fsx.js';
import { usageError } from '../ui/errors.js';
import { detectIndent, formatSettings, shellQuote, SettingsShapeError, type Settings } from './claude/settings.js';

export type Scope = 'project' | 'user' | 'local';

export function claudeSettingsFile(scope: Scope, cwd: string, env: NodeJS.ProcessEnv): string {
  if (scope === 'user') return path.join(env.CLAUDE_CONFIG_DIR || path.join(os.homedir(), '.claude'), 'settings.json');
  return path.join(path.resolve(cwd), '.claude', scope === 'local' ? 'settings.local.json' : 'settings.json');
}

export interface LoadedSettings {
  file: string;
  exists: boolean;
  text: string;
  settings: Settings;
  indent: string | number;
}

export async function loadSettings(file: string): Promise<LoadedSettings> {
  const text = await readTextIfExists(file);
  if (text === undefined || !text.trim()) return { file, exists: text !== undefined, text: text ?? '', settings: {}, indent: 2 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw usageError(`${file} is not valid JSON (${(err as Error).message}); left untouched`, 'fix that file (or move it away) and run the command again');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw usageError(`${file} does not hold a JSON object; left untouched`, 'fix that file (or move it away) and run the command again');
  }
  return { file, exists: true, text, settings: parsed as Settings, indent: detectIndent(text) };
}

/** Turns a settings shape problem into the same refusal as a parse error. */
export function shapeError(file: string, err: unknown): Error {
  if (err instanceof SettingsShapeError) return usageError(`${file}: ${err.message}; left untouched`, 'fix that file and run the command again');
  return err as Error;
}

export async function writeSettings(loaded: LoadedSettings, settings: Settings): Promise<string> {
  const text = formatSettings(settings, loaded.indent);
  const mode = loaded.exists ? (await fs.stat(loaded.file).catch(() => undefined))?.mode : undefined;
  await atomicWrite(loaded.file, text);
  if (mode !== undefined) await fs.chmod(loaded.file, mode & 0o7777).catch(() => {});
  return text;
}

/** Runs `fn` holding a lock named after the settings file, kept under <home>/locks/. */
export async function withSettingsLock<T>(home: string, file: string, fn: () => Promise<T>): Promise<T> {
  const dir = path.join(home, 'locks', `settings-${createHash('sha256').update(file).digest('hex').slice(0, 16)}`);
  await ensureDir(dir);
  return withLock(dir, fn, { waitMs: 10_000 });
}

/**
 * The command a hook runs to reach this wmem: `wmem` when that is on PATH and is this very
 * installation, else the absolute node and bin/wmem.js (WMEM_HOOK_COMMAND overrides both).
 */
export function wmemCommandPrefix(env: NodeJS.ProcessEnv, homeFlag?: string): string {
  const home = homeFlag ? ` --home ${shellQuote(path.resolve(homeFlag))}` : '';
  if (env.WMEM_HOOK_COMMAND) return env.WMEM_HOOK_COMMAND + home;
  const bin = process.argv[1] ? safeRealpath(process.argv[1]) : undefined;
  if (!bin) return 'wmem' + home;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, 'wmem');
    if (existsSync(candidate) && safeRealpath(candidate) === bin) return 'wmem' + home;
  }
  return `${shellQuote(process.execPath)} ${shellQuote(bin)}${home}`;
}

function safeRealpath(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}
