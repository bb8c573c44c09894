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
/**
 * Up to this many ids, each is looked for by an anchor of its own instead (a pass per id). A
 * shared prefix such as "msg_01" is on every assistant line of a Claude Code history, and each
 * place it is found costs a call out of Buffer.indexOf (~1 µs: 50,000 of them were 45 of the
 * check's ~60 ms of CPU on the bench's 58 MB); an anchor taken from an id's random part is found
 * almost nowhere else, so a pass costs only the search, ~3 ms over those 58 MB.
 */
const MAX_ANCHORED = 16;
/**
 * An anchor's length: below 7 bytes Buffer.indexOf searches with memchr for the first byte (the
 * anchor starts at the id's rarest byte); from 7 on it sets up a Boyer-Moore search on every
 * call, which cost ten times as much here.
 */
const ANCHOR_BYTES = 6;
/**
 * Which bytes are rare is counted on the first bytes fed, one in SAMPLE_STRIDE of them up to
 * SAMPLE_BYTES: a loop that runs before the optimizing compiler has seen it (~0.1 µs a byte).
 */
const SAMPLE_BYTES = 64 << 10;
const SAMPLE_STRIDE = 7;
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

/** Where some ids are looked for: `bytes` sit `offset` bytes into each id. */
interface Anchor {
  bytes: Buffer;
  ids: { id: Buffer; offset: number }[];
}

export class IdScanner {
  private constructor(
    private readonly passes: Pass[],
    /** Ids to find by anchors (few of them), else undefined: by their prefixes (passes). */
    private readonly anchored: Buffer[] | undefined,
    /** Characters the ids are made of: an escape spelling one of them means "maybe". */
    private readonly alphabet: Set<number>,
    /** Bytes carried over a chunk boundary: enough for a quote, the longest id and its quote. */
    private readonly overlap: number,
  ) {}

  private carry = Buffer.alloc(0);
  /** Chosen from the first bytes fed (which bytes are rare depends on the history). */
  private anchors?: Anchor[];

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
    const anchored = unique.length <= MAX_ANCHORED ? unique.map((id) => Buffer.from(id, 'latin1')) : undefined;
    if (!anchored && groups.size > MAX_PASSES) return undefined;
    const passes = [...groups.values()].map((group) => {
      const key = commonPrefix(group);
      const minLength = Math.min(...group.map((id) => id.length));
      const nextTwo = minLength >= key.length + 2 ? new Set(group.map((id) => (id.charCodeAt(key.length) << 8) | id.charCodeAt(key.length + 1))) : undefined;
      return { key: Buffer.from(key, 'latin1'), ids: new Set(group), nextTwo, minLength, maxLength: Math.max(...group.map((id) => id.length)) };
    });
    return new IdScanner(passes, anchored, alphabet, longest + 2);
  }

  /** Feeds the next bytes of the stretch; true when one of the ids may be in what was fed so far. */
  push(chunk: Buffer): boolean {
    if (!this.passes.length) return false;
    if (this.anchored && !this.anchors) this.anchors = chooseAnchors(this.anchored, chunk);
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
    if (this.anchors) return this.anchorMentions(this.anchors, bytes) || this.hasEscapeInAlphabet(bytes);
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

  /** True when `bytes` hold one of the ids between quotes, found by its anchor. */
  private anchorMentions(anchors: Anchor[], bytes: Buffer): boolean {
    for (const anchor of anchors) {
      for (let at = bytes.indexOf(anchor.bytes); at !== -1; at = bytes.indexOf(anchor.bytes, at + 1)) {
        for (const { id, offset } of anchor.ids) {
          const start = at - offset;
          // A quote before the start or past the end of these bytes: the mention is whole in a seam.
          if (start < 1 || bytes[start - 1] !== QUOTE || bytes[start + id.length] !== QUOTE) continue;
          if (id.equals(bytes.subarray(start, start + id.length))) return true;
        }
      }
    }
    return false;
  }

  /**
   * The same question as fixed strings, for a native scanner (`grep -F`, quick-cut.ts): the bytes
   * may hold an id when one of these is in them. Each id with its closing quote (a string that
   * only ends with an id matches too, and answers "maybe" where push() would not: grep took ~20%
   * more CPU with the opening quote as well, every quote of the history a stop), every `\u00XX`
   * escape of an id's character (its last hex digit in either case: an id character is printable
   * ASCII, so the others are digits) and `\/` when an id has a slash. On valid JSON, whatever
   * push() answers "maybe" to holds one of them; push() also says it to some malformed escapes
   * (parseInt reads `\u41zz` as 0x41), which spell nothing. Empty when there are no ids.
   */
  fixedStrings(): string[] {
    return this.fixedStringGroups().flat();
  }

  /**
   * fixedStrings() in two groups for two greps side by side, [ids, escapes] (empty when there are
   * no ids): GNU grep -F finds strings that all start with one byte by memchr for it, and the
   * escapes all start with a backslash; mixed with the ids, the search cost ~4 times the two
   * apart (bench/README.md, compact7). With `sample` (the history's first bytes), each id is cut
   * to its tail from the byte that every id holds and the sample holds least (`_` in `msg_01…`
   * and `toolu_01…`) when that leaves at least MIN_TAIL bytes of each: whatever holds an id
   * holds its tail, so "no" stays exact, and a tail of a random id is found nowhere else.
   */
  fixedStringGroups(sample?: Buffer): string[][] {
    const ids = this.passes.flatMap((pass) => [...pass.ids]);
    if (!ids.length) return [];
    const from = sample ? rareSharedByte(ids, sample) : undefined;
    const tails = ids.map((id) => `${from === undefined ? id : id.slice(id.indexOf(from))}"`);
    const escapes: string[] = [];
    for (const code of this.alphabet) {
      const hex = code.toString(16).padStart(4, '0');
      escapes.push(`\\u${hex}`);
      if (hex !== hex.toUpperCase()) escapes.push(`\\u${hex.toUpperCase()}`);
    }
    if (this.alphabet.has(0x2f)) escapes.push('\\/');
    return [tails, escapes];
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

/**
 * An anchor for each id: its ANCHOR_BYTES bytes (all of it, if shorter) that start with the byte
 * rarest in `sample`. Ids with the same anchor share it.
 */
function chooseAnchors(ids: Buffer[], sample: Buffer): Anchor[] {
  const counts = byteCounts(sample);
  const anchors = new Map<string, Anchor>();
  for (const id of ids) {
    const length = Math.min(ANCHOR_BYTES, id.length);
    let offset = 0;
    for (let k = 1; k + length <= id.length; k++) if (counts[id[k]!]! < counts[id[offset]!]!) offset = k;
    const bytes = id.subarray(offset, offset + length);
    const key = bytes.toString('latin1');
    const anchor = anchors.get(key) ?? { bytes, ids: [] };
    anchor.ids.push({ id, offset });
    anchors.set(key, anchor);
  }
  return [...anchors.values()];
}

/** An id's tail for grep is at least this long (random enough to be found only where the id is). */
const MIN_TAIL = 12;

/**
 * The byte every id holds with at least MIN_TAIL bytes from its first place to the id's end, the
 * one `sample` holds least (byteCounts); undefined when there is none.
 */
function rareSharedByte(ids: string[], sample: Buffer): string | undefined {
  const counts = byteCounts(sample);
  let best: string | undefined;
  for (const c of new Set(ids[0])) {
    if (!ids.every((id) => id.indexOf(c) !== -1 && id.length - id.indexOf(c) >= MIN_TAIL)) continue;
    if (best === undefined || counts[c.charCodeAt(0)]! < counts[best.charCodeAt(0)]!) best = c;
  }
  return best;
}

/** How often each byte is in `sample`'s first SAMPLE_BYTES, one in SAMPLE_STRIDE of them. */
function byteCounts(sample: Buffer): Uint32Array {
  const counts = new Uint32Array(256);
  for (let i = 0, n = Math.min(sample.length, SAMPLE_BYTES); i < n; i += SAMPLE_STRIDE) counts[sample[i]!]!++;
  return counts;
}

function commonPrefix(values: string[]): string {
  let prefix = values[0]!;
  for (const value of values) while (!value.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}
