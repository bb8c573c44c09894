// The switches that turn wmem off without uninstalling it: WMEM_DISABLED=1 in the environment
// (everywhere the variable reaches), and `wmem off` for one project, a flag file `off` in the
// project's folder under the home that every hook and `wmem context` look for.
import { promises as fs, lstatSync } from 'node:fs';
import { atomicWrite, fsyncDir } from './fsx.js';
import { joinName, OFF_FILE } from './names.js';
import { locateProject, type ProjectRef } from './project.js';
import { fsError } from '../ui/errors.js';

/** WMEM_DISABLED set to anything but empty, 0, false, no or off. */
export function disabledByEnv(env: NodeJS.ProcessEnv): boolean {
  const value = env.WMEM_DISABLED?.trim().toLowerCase();
  return !!value && !['0', 'false', 'no', 'off'].includes(value);
}

export function offFile(projectDir: string): string {
  return joinName(projectDir, OFF_FILE);
}

/** Whether the project folder holds the flag (any kind of entry named `off`: it is never read). */
export function isOffAt(projectDir: string): boolean {
  try {
    lstatSync(offFile(projectDir));
    return true;
  } catch {
    return false;
  }
}

/** The project's flag file when `wmem off` is in force for the folder `cwd`; nothing is created. */
export async function projectOff(home: string, cwd: string): Promise<string | undefined> {
  const project = await locateProject(home, cwd, { create: false });
  return project && isOffAt(project.dir) ? offFile(project.dir) : undefined;
}

export interface SwitchResult {
  project: ProjectRef;
  file: string;
  off: boolean;
  /** False when the project was already so. */
  changed: boolean;
}

/** `wmem off` / `wmem on`: writes or removes the flag (the project folder is created for off). */
export async function setProjectOff(home: string, cwd: string, off: boolean, now: Date): Promise<SwitchResult | undefined> {
  const project = await locateProject(home, cwd, { create: off, now });
  if (!project) return undefined;
  const file = offFile(project.dir);
  const was = isOffAt(project.dir);
  if (off && !was) await atomicWrite(file, JSON.stringify({ version: 1, since: now.toISOString() }) + '\n');
  if (!off && was) {
    try {
      await fs.rm(file, { force: true });
      await fsyncDir(project.dir);
    } catch (err) {
      throw fsError(err, 'remove', file);
    }
  }
  return { project, file, off, changed: off !== was };
}
