// A short, stable name for a text, with nothing to load: the answer cache's first stage and a
// search's path use it (hash.ts re-exports it beside sha256).

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
