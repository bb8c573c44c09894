// An agent's config file as wmem reads and rewrites it, whatever the agent: the text is read
// whole, an adapter plans the change (pure), and the rewrite is atomic, keeps the file's mode, and
// happens under a lock kept in wmem's home (not in the user's config folder). Also the command a
// hook runs to reach this wmem.
import { createHash } from 'node:crypto';
import { existsSync, promises as fs, realpathSync } from 'node:fs';
import path from 'node:path';
import { atomicWrite, ensureDir, fsyncDir, readTextIfExists, withLock } from '../store/fsx.js';
import { shellQuote } from '../ui/shell.js';
import { usageError } from '../ui/errors.js';

/**
 * The file's text, or undefined when it does not exist. A folder, FIFO or device where the config
 * file should be is refused (exit 2, nothing written): reading a FIFO would block.
 */
export async function readConfigText(file: string): Promise<string | undefined> {
  const st = await fs.stat(file).catch(() => undefined);
  if (st && !st.isFile()) throw usageError(`${file} is not a regular file (${st.isDirectory() ? 'a folder' : 'a FIFO, socket or device'}); left untouched`, 'move it away and run the command again');
  return readTextIfExists(file);
}

/** Writes `text` atomically; an existing file keeps its mode. */
export async function writeConfigText(file: string, text: string): Promise<void> {
  const mode = (await fs.stat(file).catch(() => undefined))?.mode;
  await atomicWrite(file, text, { userFolder: true });
  if (mode !== undefined) await fs.chmod(file, mode & 0o7777).catch(() => {});
}

/** Removes a file that is wmem's alone (OpenCode's plugin); one already gone is fine. */
export async function removeConfigFile(file: string): Promise<void> {
  await fs.rm(file, { force: true });
  await fsyncDir(path.dirname(file)).catch(() => {});
}

/** Runs `fn` holding a lock named after the config file, kept under <home>/locks/. */
export async function withConfigLock<T>(home: string, file: string, fn: () => Promise<T>): Promise<T> {
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
