// sha256 for ids and fingerprints, with node:crypto loaded on first use: the modules that call
// this are also on the render path of `wmem context`, which runs on every prompt and never hashes.
import type { createHash as CreateHash } from 'node:crypto';

let createHash: typeof CreateHash | undefined;

export function sha256Hex(text: string): string {
  return nodeHash('sha256').update(text).digest('hex');
}

/** node:crypto's Hash (with copy()), node:crypto loaded on first use: not by a command's start. */
export function nodeHash(algorithm: 'sha256' | 'sha1'): ReturnType<typeof CreateHash> {
  createHash ??= process.getBuiltinModule('node:crypto').createHash;
  return createHash(algorithm);
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

/** What the streaming hashers here and node:crypto's Hash both do. */
export interface Sha256 {
  update(data: Uint8Array | string): Sha256;
  digest(encoding: 'hex'): string;
}

/** Up to this much is hashed in JavaScript; past it, node:crypto is loaded and takes over. */
const SMALL = 1 << 18;

/**
 * A streaming sha256 that loads node:crypto (~10 ms of a hook's start) only for input past
 * 256 KiB: a transcript's first 4 KiB or a short scratch.md is hashed in JavaScript, in well
 * under a millisecond. The digest is sha256's either way (test/unit/hash.test.ts).
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
    digest: () => (node ? node.digest('hex') : sha256Js(Buffer.concat(pending, size))),
  };
  return hasher;
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** FIPS 180-4 sha256 of a whole buffer, as hex. */
function sha256Js(data: Uint8Array): string {
  const blocks = Math.ceil((data.length + 9) / 64);
  const padded = new Uint8Array(blocks * 64);
  padded.set(data);
  padded[data.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(data.length / 0x20000000));
  view.setUint32(padded.length - 4, (data.length << 3) >>> 0);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));
  for (let at = 0; at < padded.length; at += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(at + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15]!, 7) ^ rotr(w[i - 15]!, 18) ^ (w[i - 15]! >>> 3);
      const s1 = rotr(w[i - 2]!, 17) ^ rotr(w[i - 2]!, 19) ^ (w[i - 2]! >>> 10);
      w[i] = w[i - 16]! + s0 + w[i - 7]! + s1;
    }
    let [a, b, c, d, e, f, g, hh] = h as unknown as number[];
    for (let i = 0; i < 64; i++) {
      const t1 = (hh! + (rotr(e!, 6) ^ rotr(e!, 11) ^ rotr(e!, 25)) + ((e! & f!) ^ (~e! & g!)) + K[i]! + w[i]!) >>> 0;
      const t2 = ((rotr(a!, 2) ^ rotr(a!, 13) ^ rotr(a!, 22)) + ((a! & b!) ^ (a! & c!) ^ (b! & c!))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d! + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0]! += a!;
    h[1]! += b!;
    h[2]! += c!;
    h[3]! += d!;
    h[4]! += e!;
    h[5]! += f!;
    h[6]! += g!;
    h[7]! += hh!;
  }
  return Array.from(h, (x) => x.toString(16).padStart(8, '0')).join('');
}
