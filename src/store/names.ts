// The naming rules the first stage needs too (src/entries/first.ts): where the home is, how a
// project folder is named, which session ids are valid. Built-ins only; paths.ts re-exports them.
import os from 'node:os';
import path from 'node:path';

/** --home, else $WMEM_HOME, else ~/.ai; `~` expanded. */
export function homeFrom(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  const raw = flag ?? (env.WMEM_HOME || defaultHome(env));
  const expanded = raw === '~' ? userHome(env) : raw.startsWith('~/') ? path.join(userHome(env), raw.slice(2)) : raw;
  return path.resolve(expanded);
}

/**
 * The user's home: $HOME first (tests and sandboxes set it), else the OS's. On POSIX os.homedir()
 * reads $HOME first too, so the answer is the same for the process's own environment (on Windows
 * it reads USERPROFILE: a HOME set by Git Bash or MSYS now names the home there as well); node:os is then
 * not loaded at all by a hook (the first stages load it on first use: ~10 page faults and ~1 M
 * instructions on every hook, bench/README.md, floor15).
 */
export function userHome(env: NodeJS.ProcessEnv): string {
  return env.HOME || os.homedir();
}

/** wmem's home when neither --home nor $WMEM_HOME names one: ~/.ai. */
export function defaultHome(env: NodeJS.ProcessEnv): string {
  return path.join(userHome(env), '.ai');
}

/**
 * path.join(dir, name) for a plain name (no separator, not `.` nor `..`) in an absolute folder
 * path already in normal form (as path.join and path.resolve give them): the same string, made by
 * concatenation. path.join normalizes the whole joined path again, a character at a time in
 * JavaScript, and a hook's ~50 joins of long session paths made that loop (node:path's
 * normalizeString) hot enough for V8 to optimize it on a worker thread: ~190 page faults and
 * ~13 ms of CPU in every prompt of a session under a long path. Anything else: path.join.
 */
export function joinName(dir: string, name: string): string {
  return path.sep === '/' && isNormalAbsolute(dir) && isPlainName(name) ? `${dir}/${name}` : path.join(dir, name);
}

// Native string searches only: a JavaScript loop over the characters would be the loop above again.
function isNormalAbsolute(dir: string): boolean {
  return dir.length > 1 && dir.startsWith('/') && !dir.endsWith('/') && !dir.endsWith('/.') && !dir.endsWith('/..') && !dir.includes('//') && !dir.includes('/./') && !dir.includes('/../');
}

function isPlainName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/');
}

/** `/Users/genius/project/ai` → `--Users-genius-project-ai--`. Lossy by design; project.json disambiguates. */
export function encodeCwd(realPath: string): string {
  const trimmed = realPath.replace(/^[\\/]+/, '');
  return `--${trimmed.replace(/[/\\:]/g, '-')}--`;
}

const SESSION_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The flag file `wmem off` leaves in the project folder (store/switch.ts). */
export const OFF_FILE = 'off';

/** Names the project folder uses for itself; a session of that name would collide with them. */
export const RESERVED_SESSION_IDS = new Set(['cache', 'current', 'project.json', 'workspace-memory.json', 'team-cache.json', 'logs', 'state', OFF_FILE]);

export function isValidSessionId(id: string): boolean {
  return SESSION_ID.test(id) && id !== '.' && id !== '..' && !RESERVED_SESSION_IDS.has(id) && !/\.(?:tmp|lock)$/.test(id);
}

