// Use cases `wmem off` / `wmem on`: the project's switch (a flag file in its folder under the
// home, store/switch.ts), and what the switches say for `status`, `doctor` and `context`.
import { disabledByEnv, projectOff, setProjectOff, type SwitchResult } from '../store/switch.js';
import type { AppEnv } from './env.js';
import type { Where } from '../store/session.js';

/** Turns wmem off (or back on) for the project of `env.cwd`; off works before any session exists. */
export async function switchProject({ off }: { off: boolean }, env: AppEnv): Promise<SwitchResult | { off: false; changed: false; project?: undefined; file?: undefined }> {
  return (await setProjectOff(env.home, env.cwd, off, env.now())) ?? { off: false, changed: false };
}

export interface Switches {
  /** WMEM_DISABLED is set in this environment. */
  disabledByEnv: boolean;
  /** The flag file when `wmem off` is in force for the project. */
  projectOff?: string;
  /** What is switched off, in one line (absent: wmem is on). */
  line?: string;
}

/** Both switches, for the folder `env.cwd` (a folder that does not exist is simply not off). */
export async function readSwitches(env: Where): Promise<Switches> {
  const off = await projectOff(env.home, env.cwd).catch(() => undefined);
  const switches: Switches = { disabledByEnv: disabledByEnv(env.env), ...(off ? { projectOff: off } : {}) };
  const line = switchedOffLine(switches);
  return line ? { ...switches, line } : switches;
}

function switchedOffLine(switches: Switches): string | undefined {
  if (switches.disabledByEnv) return 'WMEM_DISABLED is set: every hook does nothing and wmem context injects nothing';
  if (switches.projectOff) return `wmem is off for this project (${switches.projectOff}): hooks and wmem context do nothing; 'wmem on' turns it back on`;
  return undefined;
}
