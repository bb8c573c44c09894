// A short, stable name for a text, with nothing to load: the answer cache's first stage and a
// search's path use it (hash.ts re-exports it beside sha256); PreCompact's transcript fingerprint
// uses bytesHash.

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

/**
 * 64 bits of the same FNV-1a lanes over bytes taken four at a time (32-bit words in the machine's
 * order, then the last 1-3 bytes one by one), as 16 hex digits. For kilobytes on a hook's path: a
 * loop of nameHash over 4 KiB ran long enough for V8 to compile it with TurboFan (~12 M
 * instructions each time, more than the loop itself); a quarter of the turns stays in the
 * interpreter.
 */
export function bytesHash(bytes: Uint8Array): string {
  // A word view needs an aligned start: a buffer cut from Node's shared pool may not have one.
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : Uint8Array.from(bytes);
  const words = new Int32Array(aligned.buffer, aligned.byteOffset, aligned.length >>> 2);
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < words.length; i++) {
    const c = words[i]!;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c ^ (a >>> 24), 0x01000193);
  }
  for (let i = words.length * 4; i < aligned.length; i++) {
    const c = aligned[i]!;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c ^ (a >>> 24), 0x01000193);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}
