// Removing a test world's folder: a hook an agent started without waiting for it (the OpenCode and
// Kilo plugins' calls, wmem's background finishing) can still be writing into it for a moment on a
// loaded machine, and a recursive rm then meets a folder that is not empty yet. Node retries those
// (ENOTEMPTY, EBUSY) with a growing delay.
import { rm } from 'node:fs/promises';

export async function removeTree(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
}
