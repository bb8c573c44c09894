// Installs the pinned OpenCode once, into a cache folder outside the clone ($WMEM_AGENTS_CACHE,
// else ~/.cache/wmem-agents): the npm package opencode-ai pulls the native binary for this
// machine from its platform package (opencode-linux-x64 here). The JS wrapper refuses to start
// after an --ignore-scripts install, so the platform binary is run as is. The plugin API package
// OpenCode installs at start is put in the same cache's npm cache (see OpenCodeWorld). A finished
// install is marked, so a rerun reuses it; an interrupted one (no marker) is installed again.
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot } from './install-claude.js';

export const OPENCODE_VERSION = '1.18.33';
const PACKAGE = 'opencode-ai';
const MARKER = '.wmem-installed';

export function opencodeInstallDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), `opencode-${OPENCODE_VERSION}`);
}

/** The native binary inside an install folder, or undefined when none is there. */
export function findOpenCodeBinary(dir: string): string | undefined {
  const platform = `opencode-${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  const candidate = path.join(dir, 'node_modules', platform, 'bin', 'opencode');
  return existsSync(candidate) ? candidate : undefined;
}

export async function ensureOpenCode(log: (line: string) => void = () => {}): Promise<string> {
  const dir = opencodeInstallDir();
  const ready = existsSync(path.join(dir, MARKER)) ? findOpenCodeBinary(dir) : undefined;
  if (ready) return ready;
  await mkdir(cacheRoot(), { recursive: true });
  const staging = await mkdtemp(path.join(cacheRoot(), `.opencode-${OPENCODE_VERSION}-`));
  try {
    log(`installing ${PACKAGE}@${OPENCODE_VERSION} into ${dir} (once; later runs reuse it)`);
    await writeFile(path.join(staging, 'package.json'), JSON.stringify({ private: true, name: 'wmem-agents-cache' }) + '\n');
    const npm = await execa('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', '--loglevel=error', `${PACKAGE}@${OPENCODE_VERSION}`], { cwd: staging, reject: false, timeout: 600_000 });
    if (npm.exitCode !== 0) throw new Error(`npm install ${PACKAGE}@${OPENCODE_VERSION} failed (exit ${npm.exitCode}): ${String(npm.stderr).slice(-2000)}`);
    const bin = findOpenCodeBinary(staging);
    if (!bin) throw new Error(`npm installed ${PACKAGE}@${OPENCODE_VERSION} but no platform binary for ${process.platform}-${process.arch}`);
    const version = String((await execa(bin, ['--version'], { reject: false, timeout: 60_000 })).stdout).trim();
    if (version !== OPENCODE_VERSION) throw new Error(`the installed opencode says ${JSON.stringify(version)}, expected ${OPENCODE_VERSION}`);
    await writeFile(path.join(staging, MARKER), `${version}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const bin = findOpenCodeBinary(dir);
  if (!bin) throw new Error(`no opencode binary in ${dir} after installing it`);
  return bin;
}
