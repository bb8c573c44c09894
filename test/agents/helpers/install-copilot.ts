// Installs the pinned GitHub Copilot CLI once, into a cache folder outside the clone
// ($WMEM_AGENTS_CACHE, else ~/.cache/wmem-agents): @github/copilot pulls a native binary for this
// machine from its platform package (@github/copilot-<os>-<arch>), which unpacks its JavaScript
// into `$COPILOT_PKG_CACHE_HOME/pkg` on its first run. The install runs that first start itself
// (`--version`) with the unpack folder inside the install folder, and the worlds point
// COPILOT_PKG_CACHE_HOME there, so no test run unpacks 200 MB into its temporary HOME. A finished
// install is marked, so a rerun reuses it; an interrupted one (no marker) is installed again.
import { execa } from 'execa';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot } from './install-claude.js';

export const COPILOT_VERSION = '1.0.102';
const PACKAGE = '@github/copilot';
const MARKER = '.wmem-installed';

export function copilotInstallDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), `copilot-${COPILOT_VERSION}`);
}

/** Where the binary unpacks its JavaScript (COPILOT_PKG_CACHE_HOME for every run). */
export function copilotPkgCache(binary: string): string {
  const dir = binary.split(`${path.sep}node_modules${path.sep}`)[0];
  return path.join(dir, 'pkg-cache');
}

/** The native binary inside an install folder, or undefined when none is there. */
export function findCopilotBinary(dir: string): string | undefined {
  const scope = path.join(dir, 'node_modules', '@github');
  if (!existsSync(scope)) return undefined;
  for (const name of readdirSync(scope)) {
    if (!name.startsWith('copilot-')) continue;
    for (const file of ['copilot', 'copilot.exe']) {
      const candidate = path.join(scope, name, file);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

/** The path of the pinned client's binary, installing (and unpacking) it first when the cache has none. */
export async function ensureCopilot(log: (line: string) => void = () => {}): Promise<string> {
  const dir = copilotInstallDir();
  const ready = existsSync(path.join(dir, MARKER)) ? findCopilotBinary(dir) : undefined;
  if (ready) return ready;
  // No marker: nothing there, or an install or first start that did not finish; start afresh.
  await mkdir(cacheRoot(), { recursive: true });
  const staging = await mkdtemp(path.join(cacheRoot(), `.copilot-${COPILOT_VERSION}-`));
  try {
    log(`installing ${PACKAGE}@${COPILOT_VERSION} into ${dir} (once; later runs reuse it)`);
    await writeFile(path.join(staging, 'package.json'), JSON.stringify({ private: true, name: 'wmem-agents-cache' }) + '\n');
    const npm = await execa('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', '--loglevel=error', `${PACKAGE}@${COPILOT_VERSION}`], {
      cwd: staging,
      reject: false,
      timeout: 600_000,
    });
    if (npm.exitCode !== 0) throw new Error(`npm install ${PACKAGE}@${COPILOT_VERSION} failed (exit ${npm.exitCode}): ${String(npm.stderr).slice(-2000)}`);
    const bin = findCopilotBinary(staging);
    if (!bin) throw new Error(`npm installed ${PACKAGE}@${COPILOT_VERSION} but no platform package with a copilot binary for ${process.platform}-${process.arch}`);
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const bin = findCopilotBinary(dir);
  if (!bin) throw new Error(`no copilot binary in ${dir} after installing it`);
  // The first start unpacks the JavaScript; it must land where the worlds look (the final folder).
  const env = { ...process.env, HOME: dir, COPILOT_PKG_CACHE_HOME: copilotPkgCache(bin), COPILOT_AUTO_UPDATE: 'false', NO_COLOR: '1' };
  const version = String((await execa(bin, ['--version'], { reject: false, timeout: 300_000, env })).stdout).trim();
  if (!version.startsWith(`GitHub Copilot CLI ${COPILOT_VERSION}`)) {
    throw new Error(`the installed copilot says ${JSON.stringify(version)}, expected GitHub Copilot CLI ${COPILOT_VERSION}`);
  }
  await writeFile(path.join(dir, MARKER), `${COPILOT_VERSION}\n`);
  return bin;
}
