// Installs one pinned agent client from the npm registry once, into a cache folder outside the
// clone ($WMEM_AGENTS_CACHE, else ~/.cache/wmem-agents): `npm install --ignore-scripts` into a
// staging folder, the binary found and asked its version, a marker written, then the folder
// renamed into place. A rerun reuses a marked folder; an interrupted install (no marker) is redone.
// The newer clients (Droid, Kilo) share this; the first four keep their own copies.
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot } from './install-claude.js';

const MARKER = '.wmem-installed';

export interface NpmClient {
  /** The cache folder's name (`droid-0.215.0`). */
  folder: string;
  /** What npm installs (`droid@0.215.0`). */
  spec: string;
  /** The binary inside an install folder (it need not exist). */
  binary(dir: string): string;
  /** What `binary --version` must print (trimmed), or a test of it. */
  version: (printed: string) => boolean;
  env?: NodeJS.ProcessEnv;
}

export async function ensureNpmClient(client: NpmClient, log: (line: string) => void = () => {}): Promise<string> {
  const dir = path.join(cacheRoot(), client.folder);
  if (existsSync(path.join(dir, MARKER)) && existsSync(client.binary(dir))) return client.binary(dir);
  await mkdir(cacheRoot(), { recursive: true });
  const staging = await mkdtemp(path.join(cacheRoot(), `.${client.folder}-`));
  try {
    log(`installing ${client.spec} into ${dir} (once; later runs reuse it)`);
    await writeFile(path.join(staging, 'package.json'), JSON.stringify({ private: true, name: 'wmem-agents-cache' }) + '\n');
    const npm = await execa('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', '--loglevel=error', client.spec], { cwd: staging, reject: false, timeout: 600_000 });
    if (npm.exitCode !== 0) throw new Error(`npm install ${client.spec} failed (exit ${npm.exitCode}): ${String(npm.stderr).slice(-2000)}`);
    const bin = client.binary(staging);
    if (!existsSync(bin)) throw new Error(`npm installed ${client.spec} but ${path.relative(staging, bin)} is not there (${process.platform}-${process.arch})`);
    const printed = String((await execa(bin, ['--version'], { reject: false, timeout: 60_000, env: { ...process.env, ...client.env } })).stdout).trim();
    if (!client.version(printed)) throw new Error(`the installed ${client.spec} says ${JSON.stringify(printed)}`);
    await writeFile(path.join(staging, MARKER), `${printed}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return client.binary(dir);
}
