// sha256 for ids and fingerprints, with node:crypto loaded on first use: the modules that call
// this are also on the render path of `wmem context`, which runs on every prompt and never hashes.
import type { createHash as CreateHash } from 'node:crypto';

let createHash: typeof CreateHash | undefined;

export function sha256Hex(text: string): string {
  createHash ??= process.getBuiltinModule('node:crypto').createHash;
  return createHash('sha256').update(text).digest('hex');
}
