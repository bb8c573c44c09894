// sha256 for ids and fingerprints, with node:crypto loaded on first use: the modules that call
// this are also on the render path of `wmem context`, which runs on every prompt and never hashes.
import type { createHash as CreateHash } from 'node:crypto';
import { sha256 as sha256Js } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

export { nameHash } from './name-hash.js';

let createHash: typeof CreateHash | undefined;

/** sha256 of a text, hex: a short one (an error's fingerprint, a workspace entry's id, on a tool call's hook) without loading node:crypto. */
export function sha256Hex(text: string): string {
  return sha256().update(text).digest('hex');
}

/** node:crypto's Hash (with copy()), node:crypto loaded on first use: not by a command's start. */
export function nodeHash(algorithm: 'sha256' | 'sha1'): ReturnType<typeof CreateHash> {
  createHash ??= process.getBuiltinModule('node:crypto').createHash;
  return createHash(algorithm);
}

/** What the streaming hashers here and node:crypto's Hash both do. */
export interface Sha256 {
  update(data: Uint8Array | string): Sha256;
  digest(encoding: 'hex'): string;
}

/** Up to this much is hashed in JavaScript; past it, node:crypto is loaded and takes over. */
const SMALL = 1 << 18;

/**
 * A streaming sha256 that loads node:crypto (~10 ms of a hook's start) only for input past
 * 256 KiB: a transcript's first 4 KiB or a short scratch.md is hashed in JavaScript by
 * @noble/hashes (audited, no dependencies, a few KB bundled), in well under a millisecond. The
 * digest is sha256's either way (test/unit/hash.test.ts).
 */
export function sha256(): Sha256 {
  let pending: Uint8Array[] = [];
  let size = 0;
  let node: ReturnType<typeof CreateHash> | undefined;
  const hasher: Sha256 = {
    update(data) {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      if (node) node.update(bytes);
      else {
        // Copied: a caller may reuse its buffer for the next chunk.
        pending.push(Uint8Array.prototype.slice.call(bytes));
        size += bytes.length;
        if (size > SMALL) {
          node = nodeHash('sha256');
          for (const chunk of pending) node.update(chunk);
          pending = [];
        }
      }
      return hasher;
    },
    digest: () => (node ? node.digest('hex') : bytesToHex(sha256Js(Buffer.concat(pending, size)))),
  };
  return hasher;
}
