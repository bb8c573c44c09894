// Installs the pinned Gemini CLI once, into a cache folder outside the clone ($WMEM_AGENTS_CACHE,
// else ~/.cache/wmem-agents): @google/gemini-cli is one bundled Node program (bundle/gemini.js,
// engines node >=20) plus optional native helpers (node-pty, keytar) it does without, so it is
// installed with --ignore-scripts and run with this Node. A finished install is marked, so a rerun
// reuses it; an interrupted one (no marker) is installed again into a fresh folder.
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot } from './install-claude.js';

export const GEMINI_VERSION = '0.61.0';
const PACKAGE = '@google/gemini-cli';
const MARKER = '.wmem-installed';

export function geminiInstallDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), `gemini-cli-${GEMINI_VERSION}`);
}

/** The CLI's entry script inside an install folder. */
export function geminiEntry(dir: string): string {
  return path.join(dir, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
}

/** The path of the pinned client's entry script (run with `node`), installing it first when the cache has none. */
export async function ensureGemini(log: (line: string) => void = () => {}): Promise<string> {
  const dir = geminiInstallDir();
  if (existsSync(path.join(dir, MARKER)) && existsSync(geminiEntry(dir))) return geminiEntry(dir);
  await mkdir(cacheRoot(), { recursive: true });
  const staging = await mkdtemp(path.join(cacheRoot(), `.gemini-cli-${GEMINI_VERSION}-`));
  try {
    log(`installing ${PACKAGE}@${GEMINI_VERSION} into ${dir} (once; later runs reuse it)`);
    await writeFile(path.join(staging, 'package.json'), JSON.stringify({ private: true, name: 'wmem-agents-cache' }) + '\n');
    const npm = await execa('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', '--loglevel=error', `${PACKAGE}@${GEMINI_VERSION}`], {
      cwd: staging,
      reject: false,
      timeout: 600_000,
    });
    if (npm.exitCode !== 0) throw new Error(`npm install ${PACKAGE}@${GEMINI_VERSION} failed (exit ${npm.exitCode}): ${String(npm.stderr).slice(-2000)}`);
    const version = String((await execa(process.execPath, [geminiEntry(staging), '--version'], { reject: false, timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } })).stdout).trim();
    if (version !== GEMINI_VERSION) throw new Error(`the installed gemini says ${JSON.stringify(version)}, expected ${GEMINI_VERSION}`);
    await writeFile(path.join(staging, MARKER), `${version}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return geminiEntry(dir);
}
