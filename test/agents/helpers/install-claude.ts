// Installs the pinned Claude Code CLI once, into a cache folder outside the clone
// ($WMEM_AGENTS_CACHE, else ~/.cache/wmem-agents), and finds its native binary: the npm package
// @anthropic-ai/claude-code pulls the binary for this machine from its platform package
// (@anthropic-ai/claude-code-<os>-<arch>[-musl]). Its postinstall is skipped: the binary in the
// platform package is what it would copy, and it runs as is. A finished install is marked, so a
// rerun reuses it; an interrupted one (no marker) is installed again into a fresh folder.
import { execa } from 'execa';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, rename, rm, writeFile, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const CLAUDE_VERSION = '2.1.328';
const PACKAGE = '@anthropic-ai/claude-code';
const MARKER = '.wmem-installed';

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.WMEM_AGENTS_CACHE || path.join(os.homedir(), '.cache', 'wmem-agents');
}

export function installDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheRoot(env), `claude-code-${CLAUDE_VERSION}`);
}

/** The native binary inside an install folder, or undefined when none is there. */
export function findBinary(dir: string): string | undefined {
  const scope = path.join(dir, 'node_modules', '@anthropic-ai');
  if (!existsSync(scope)) return undefined;
  for (const name of readdirSync(scope)) {
    if (!name.startsWith('claude-code-')) continue;
    for (const file of ['claude', 'claude.exe']) {
      const candidate = path.join(scope, name, file);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

async function versionOf(bin: string): Promise<string> {
  const result = await execa(bin, ['--version'], { reject: false, timeout: 30_000, env: { ...process.env, DISABLE_AUTOUPDATER: '1' } });
  return String(result.stdout).trim();
}

/** The path of the pinned client's binary, installing it first when the cache has none. */
export async function ensureClaude(log: (line: string) => void = () => {}): Promise<string> {
  const dir = installDir();
  const ready = existsSync(path.join(dir, MARKER)) ? findBinary(dir) : undefined;
  if (ready) return ready;
  await mkdir(cacheRoot(), { recursive: true });
  const staging = await mkdtemp(path.join(cacheRoot(), `.claude-code-${CLAUDE_VERSION}-`));
  try {
    log(`installing ${PACKAGE}@${CLAUDE_VERSION} into ${dir} (once; later runs reuse it)`);
    await writeFile(path.join(staging, 'package.json'), JSON.stringify({ private: true, name: 'wmem-agents-cache' }) + '\n');
    const npm = await execa('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--no-save', '--loglevel=error', `${PACKAGE}@${CLAUDE_VERSION}`], {
      cwd: staging,
      reject: false,
      timeout: 600_000,
    });
    if (npm.exitCode !== 0) throw new Error(`npm install ${PACKAGE}@${CLAUDE_VERSION} failed (exit ${npm.exitCode}): ${String(npm.stderr).slice(-2000)}`);
    const bin = findBinary(staging);
    if (!bin) throw new Error(`npm installed ${PACKAGE}@${CLAUDE_VERSION} but no platform package with a claude binary for ${process.platform}-${process.arch}`);
    const version = await versionOf(bin);
    if (!version.startsWith(CLAUDE_VERSION)) throw new Error(`the installed claude says ${JSON.stringify(version)}, expected ${CLAUDE_VERSION}`);
    await writeFile(path.join(staging, MARKER), `${version}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const bin = findBinary(dir);
  if (!bin) throw new Error(`no claude binary in ${dir} after installing it`);
  return bin;
}
