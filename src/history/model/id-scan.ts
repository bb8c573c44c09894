// Pure: does a stretch of raw JSON lines mention any of a few ids, answered without parsing it?
// A quick compaction uses it to check that no line before its cut carries a link id of the kept
// turns (docs/compaction.md: a cut never separates linked lines). A link id is a whole JSON string value,
// so in the raw bytes it sits between two quotes. The answer is conservative: "yes" may be a
// mention in plain text (the caller then plans exactly, by parsing); "no" is certain, because
// any escape that could spell one of the ids' characters some other way also answers "yes".

/** Ids with a shared first 4 bytes are found in one pass, by their common prefix. */
const KEY_BYTES = 4;
/** More passes than this, and parsing is as cheap: the caller plans exactly instead. */
const MAX_PASSES = 8;
const QUOTE = 0x22;
const UNICODE_ESCAPE = Buffer.from('\\u', 'latin1');
const SLASH_ESCAPE = Buffer.from('\\/', 'latin1');

interface Pass {
  key: Buffer;
  ids: Set<string>;
  /** The two bytes after the key of every id, as 16-bit numbers: most mentions of the key stop here. */
  nextTwo?: Set<number>;
  /** The shortest and the longest id of this pass, in bytes. */
  minLength: number;
  maxLength: number;
}

export class IdScanner {
  private constructor(
    private readonly passes: Pass[],
    /** Characters the ids are made of: an escape spelling one of them means "maybe". */
    private readonly alphabet: Set<number>,
    /** Bytes carried over a chunk boundary: enough for a quote, the longest id and its quote. */
    private readonly overlap: number,
  ) {}

  private carry = Buffer.alloc(0);

  /**
   * A scanner for `ids`, or undefined when they cannot be found cheaply and surely by bytes
   * (ids shorter than 4 bytes, non-ASCII or needing JSON escapes, or too many distinct prefixes).
   * An empty set gives a scanner that never finds anything.
   */
  static for(ids: Iterable<string>): IdScanner | undefined {
    const unique = [...new Set(ids)];
    const alphabet = new Set<number>();
    const groups = new Map<string, string[]>();
    let longest = 0;
    for (const id of unique) {
      // Printable ASCII but quote and backslash: such an id is its own JSON text, byte for byte.
      if (id.length < KEY_BYTES || !/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/.test(id)) return undefined;
      for (let i = 0; i < id.length; i++) alphabet.add(id.charCodeAt(i));
      longest = Math.max(longest, id.length);
      const head = id.slice(0, KEY_BYTES);
      const group = groups.get(head);
      if (group) group.push(id);
      else groups.set(head, [id]);
    }
    if (groups.size > MAX_PASSES) return undefined;
    const passes = [...groups.values()].map((group) => {
      const key = commonPrefix(group);
      const minLength = Math.min(...group.map((id) => id.length));
      const nextTwo = minLength >= key.length + 2 ? new Set(group.map((id) => (id.charCodeAt(key.length) << 8) | id.charCodeAt(key.length + 1))) : undefined;
      return { key: Buffer.from(key, 'latin1'), ids: new Set(group), nextTwo, minLength, maxLength: Math.max(...group.map((id) => id.length)) };
    });
    return new IdScanner(passes, alphabet, longest + 2);
  }

  /** Feeds the next bytes of the stretch; true when one of the ids may be in what was fed so far. */
  push(chunk: Buffer): boolean {
    if (!this.passes.length) return false;
    if (this.carry.length) {
      // The boundary: a mention that starts in the carried bytes and ends in this chunk.
      const seam = Buffer.concat([this.carry, chunk.subarray(0, this.overlap)]);
      if (this.mentions(seam)) return true;
    }
    if (this.mentions(chunk)) return true;
    // The last bytes fed, from earlier chunks too when this one is short.
    const tail = chunk.length >= this.overlap ? chunk : Buffer.concat([this.carry, chunk]);
    this.carry = Buffer.from(tail.subarray(Math.max(0, tail.length - this.overlap)));
    return false;
  }

  /** True when `bytes` hold a quoted id, or an escape that could spell part of one. */
  private mentions(bytes: Buffer): boolean {
    for (const pass of this.passes) {
      const after = pass.key.length;
      for (let at = bytes.indexOf(pass.key, 1); at !== -1; at = bytes.indexOf(pass.key, at + 1)) {
        if (bytes[at - 1] !== QUOTE) continue;
        // Bytes past the end read as undefined, which never matches: such a mention is whole in the seam.
        if (pass.nextTwo && !pass.nextTwo.has((bytes[at + after]! << 8) | bytes[at + after + 1]!)) continue;
        const end = bytes.indexOf(QUOTE, at + pass.minLength);
        if (end === -1 || end - at > pass.maxLength) continue;
        if (pass.ids.has(bytes.toString('latin1', at, end))) return true;
      }
    }
    return this.hasEscapeInAlphabet(bytes);
  }

  /**
   * `\uXXXX` for an id character, or `\/` when an id has a slash. Every backslash counts, paired
   * or not: where a run of backslashes starts is unknowable at a chunk's edge, and a literal `\\u`
   * taken for an escape only costs a parse.
   */
  private hasEscapeInAlphabet(bytes: Buffer): boolean {
    for (let at = bytes.indexOf(UNICODE_ESCAPE); at !== -1; at = bytes.indexOf(UNICODE_ESCAPE, at + 1)) {
      // A \u cut by the end of these bytes is whole in the seam with the next chunk.
      if (at + 6 > bytes.length) break;
      if (this.alphabet.has(Number.parseInt(bytes.toString('latin1', at + 2, at + 6), 16))) return true;
    }
    return this.alphabet.has(0x2f) && bytes.includes(SLASH_ESCAPE);
  }
}

function commonPrefix(values: string[]): string {
  let prefix = values[0]!;
  for (const value of values) while (!value.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}
