// The user's settings for how sessions hand over to each other: `<home>/config.json`
// (`{"handoffChars": 1100, "continue": false}`), overridden by the environment (WMEM_HANDOFF_CHARS,
// WMEM_CONTINUE). A value that is not usable is ignored with a warning, never fatal: hooks read it.
import path from 'node:path';
import { DEFAULT_HANDOFF_CHARS } from '../memory/handoff.js';
import { readCapped } from './fsx.js';

export interface HandoffSettings {
  /** The handoff block's budget in characters; 0 turns it off. */
  handoffChars: number;
  /** New sessions started by a hook begin from the previous session's overview (like `init --continue`). */
  continueSessions: boolean;
  warnings: string[];
}

export function configFile(home: string): string {
  return path.join(home, 'config.json');
}

function readConfig(home: string, warnings: string[]): Record<string, unknown> {
  const file = configFile(home);
  const text = readCapped(file, 64 * 1024);
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    /* reported below */
  }
  warnings.push(`${file} is not a JSON object; its settings are ignored (fix it or remove it)`);
  return {};
}

function chars(raw: unknown, what: string, warnings: string[]): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = typeof raw === 'number' ? raw : /^\s*\d+\s*$/.test(String(raw)) ? Number(raw) : NaN;
  if (Number.isSafeInteger(n) && n >= 0) return n;
  warnings.push(`${what}=${JSON.stringify(String(raw).slice(0, 40))} is not a whole number of characters (0 turns the handoff off); ignored`);
  return undefined;
}

function flag(raw: unknown, what: string, warnings: string[]): boolean | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === true || raw === false) return raw;
  if (/^(?:1|true|yes|on)$/i.test(String(raw))) return true;
  if (/^(?:0|false|no|off)$/i.test(String(raw))) return false;
  warnings.push(`${what}=${JSON.stringify(String(raw).slice(0, 40))} is not 1 or 0; ignored`);
  return undefined;
}

export function readHandoffSettings(home: string, env: NodeJS.ProcessEnv): HandoffSettings {
  const warnings: string[] = [];
  const config = readConfig(home, warnings);
  const handoffChars = chars(env.WMEM_HANDOFF_CHARS, 'WMEM_HANDOFF_CHARS', warnings) ?? chars(config.handoffChars, `${configFile(home)} handoffChars`, warnings) ?? DEFAULT_HANDOFF_CHARS;
  const continueSessions = flag(env.WMEM_CONTINUE, 'WMEM_CONTINUE', warnings) ?? flag(config.continue, `${configFile(home)} continue`, warnings) ?? false;
  return { handoffChars, continueSessions, warnings };
}
