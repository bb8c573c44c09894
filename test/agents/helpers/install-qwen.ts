// Installs the pinned Qwen Code once, into a cache folder outside the clone ($WMEM_AGENTS_CACHE,
// else ~/.cache/wmem-agents): @qwen-code/qwen-code is one bundled Node program (cli-entry.js; its
// package asks for Node >= 22 but it runs on 20) with no dependencies, installed with
// --ignore-scripts and run with this Node. A finished install is marked, so a rerun reuses it; an
// interrupted one (no marker) is installed again into a fresh folder.
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot } from './install-claude.js';

export const QWEN_VERSION = '0.24.4';
const PACKAGE = '@qwen-code/qwen-code';
const MARKER = '.wmem-installed';

export function qwenInstallDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), `qwen-code-${QWEN_VERSION}`);
}

/** The CLI's entry script inside an install folder. */
export function qwenEntry(dir: string): string {
  return path.join(dir, 'node_modules', '@qwen-code', 'qwen-code', 'cli-entry.js');
}

/** The path of the pinned client's entry script (run with `node`), installing it first when the cache has none. */
export async function ensureQwen(log: (line: string) => void = () => {}): Promise<string> {
  const dir = qwenInstallDir();
  if (existsSync(path.join(dir, MARKER)) && existsSync(qwenEntry(dir))) return qwenEntry(dir);
  await mkdir(cacheRoot(), { recursive: true });
  const staging = await mkdtemp(path.join(cacheRoot(), `.qwen-code-${QWEN_VERSION}-`));
  try {
    log(`installing ${PACKAGE}@${QWEN_VERSION} into ${dir} (once; later runs reuse it)`);
    await writeFile(path.join(staging, 'package.json'), JSON.stringify({ private: true, name: 'wmem-agents-cache' }) + '\n');
    const npm = await execa('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', '--loglevel=error', '--engine-strict=false', `${PACKAGE}@${QWEN_VERSION}`], {
      cwd: staging,
      reject: false,
      timeout: 600_000,
    });
    if (npm.exitCode !== 0) throw new Error(`npm install ${PACKAGE}@${QWEN_VERSION} failed (exit ${npm.exitCode}): ${String(npm.stderr).slice(-2000)}`);
    const version = String((await execa(process.execPath, [qwenEntry(staging), '--version'], { reject: false, timeout: 60_000, env: { ...process.env, HOME: staging, NO_COLOR: '1' } })).stdout).trim();
    if (version !== QWEN_VERSION) throw new Error(`the installed qwen says ${JSON.stringify(version)}, expected ${QWEN_VERSION}`);
    await rm(path.join(staging, '.qwen'), { recursive: true, force: true });
    await writeFile(path.join(staging, MARKER), `${version}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return qwenEntry(dir);
}
