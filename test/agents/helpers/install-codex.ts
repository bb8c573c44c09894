// Installs the pinned Codex CLI once, into a cache folder outside the clone ($WMEM_AGENTS_CACHE,
// else ~/.cache/wmem-agents), and finds its native binary: the npm package @openai/codex pulls the
// binary for this machine from its platform package (@openai/codex-<os>-<arch>, an alias of
// @openai/codex@<version>-<os>-<arch>), under vendor/<target triple>/bin/codex. The JS wrapper is
// not used: the native binary runs as is. A finished install is marked, so a rerun reuses it; an
// interrupted one (no marker) is installed again into a fresh folder.
import { execa } from 'execa';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheRoot } from './install-claude.js';

export const CODEX_VERSION = '0.169.0';
const PACKAGE = '@openai/codex';
const MARKER = '.wmem-installed';

export function codexInstallDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), `codex-${CODEX_VERSION}`);
}

/** The native binary inside an install folder, or undefined when none is there. */
export function findCodexBinary(dir: string): string | undefined {
  const scope = path.join(dir, 'node_modules', '@openai');
  if (!existsSync(scope)) return undefined;
  for (const name of readdirSync(scope)) {
    if (!name.startsWith('codex-')) continue;
    const vendor = path.join(scope, name, 'vendor');
    for (const triple of existsSync(vendor) ? readdirSync(vendor) : []) {
      for (const file of ['codex', 'codex.exe']) {
        const candidate = path.join(vendor, triple, 'bin', file);
        if (existsSync(candidate)) return candidate;
      }
    }
  }
  return undefined;
}

/** The path of the pinned client's binary, installing it first when the cache has none. */
export async function ensureCodex(log: (line: string) => void = () => {}): Promise<string> {
  const dir = codexInstallDir();
  const ready = existsSync(path.join(dir, MARKER)) ? findCodexBinary(dir) : undefined;
  if (ready) return ready;
  await mkdir(cacheRoot(), { recursive: true });
  const staging = await mkdtemp(path.join(cacheRoot(), `.codex-${CODEX_VERSION}-`));
  try {
    log(`installing ${PACKAGE}@${CODEX_VERSION} into ${dir} (once; later runs reuse it)`);
    await writeFile(path.join(staging, 'package.json'), JSON.stringify({ private: true, name: 'wmem-agents-cache' }) + '\n');
    const npm = await execa('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', '--loglevel=error', `${PACKAGE}@${CODEX_VERSION}`], {
      cwd: staging,
      reject: false,
      timeout: 600_000,
    });
    if (npm.exitCode !== 0) throw new Error(`npm install ${PACKAGE}@${CODEX_VERSION} failed (exit ${npm.exitCode}): ${String(npm.stderr).slice(-2000)}`);
    const bin = findCodexBinary(staging);
    if (!bin) throw new Error(`npm installed ${PACKAGE}@${CODEX_VERSION} but no platform package with a codex binary for ${process.platform}-${process.arch}`);
    const version = String((await execa(bin, ['--version'], { reject: false, timeout: 30_000 })).stdout).trim();
    if (version !== `codex-cli ${CODEX_VERSION}`) throw new Error(`the installed codex says ${JSON.stringify(version)}, expected codex-cli ${CODEX_VERSION}`);
    await writeFile(path.join(staging, MARKER), `${version}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const bin = findCodexBinary(dir);
  if (!bin) throw new Error(`no codex binary in ${dir} after installing it`);
  return bin;
}
