// sha256 for ids and fingerprints, with node:crypto loaded on first use: the modules that call
// this are also on the render path of `wmem context`, which runs on every prompt and never hashes.
import type { createHash as CreateHash } from 'node:crypto';

let createHash: typeof CreateHash | undefined;

export function sha256Hex(text: string): string {
  createHash ??= process.getBuiltinModule('node:crypto').createHash;
  return createHash('sha256').update(text).digest('hex');
}

/**
 * 64 bits of FNV-1a over a short text's UTF-16 units, as 16 hex digits (two 32-bit lanes with
 * different starts): a name for a cache file, with no node:crypto to load on a search's path.
 */
export function nameHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c ^ (a >>> 24), 0x01000193);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}
