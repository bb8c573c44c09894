// A real, small, full-able disk for tests: a tmpfs of the given size mounted on a temporary
// folder (root is needed; elsewhere `why` says what stopped it and the tests skip with that
// reason), and helpers to fill it up and free it again.
import { execa } from 'execa';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface SmallDisk {
  mountPoint: string;
  mounted: boolean;
  why: string;
  /** Writes filler files, halving their size each time one does not fit, until nothing fits. */
  fill(): Promise<void>;
  free(): Promise<void>;
  unmount(): Promise<void>;
}

export async function smallDisk(size: string): Promise<SmallDisk> {
  const mountPoint = await mkdtemp(path.join(os.tmpdir(), 'wmem-small-disk-'));
  const result = await execa('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mountPoint], { reject: false });
  const mounted = result.exitCode === 0;
  const why = mounted ? '' : `cannot mount a small tmpfs here (${String(result.stderr).trim() || `exit ${result.exitCode}`})`;
  const filler = (bytes: number) => path.join(mountPoint, `filler-${bytes}`);
  return {
    mountPoint,
    mounted,
    why,
    async fill() {
      for (let bytes = 4 * 1024 * 1024; bytes >= 256; bytes = Math.floor(bytes / 2)) {
        await writeFile(filler(bytes), Buffer.alloc(bytes)).catch(() => rm(filler(bytes), { force: true }));
      }
    },
    async free() {
      for (const name of await readdir(mountPoint)) if (name.startsWith('filler-')) await rm(path.join(mountPoint, name), { force: true });
    },
    async unmount() {
      if (mounted) await execa('umount', [mountPoint], { reject: false });
      await rm(mountPoint, { recursive: true, force: true });
    },
  };
}
