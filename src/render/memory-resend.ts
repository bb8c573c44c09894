// Pure: what a conversation is given of the memory part, the same rule for every agent (SPEC §14).
// A conversation that holds no copy gets the memory part whole; one whose copy is still current
// gets nothing more; one whose copy is out of date (a note from another terminal, a teammate's
// team memory, a consolidation) gets the blocks that changed, each whole, under a line saying
// they replace the blocks of the same name. The record of the copy given (digests, no text) is
// kept in the session's hook state.
import { neutralizeTags, type MemoryWhere } from './context.js';

/** The memory part a conversation was last given: its digest and one digest per block. */
export interface MemoryCopy {
  digest: string;
  /** Block tag (or `notice` for lines outside any block) → digest of its text. */
  blocks?: Record<string, string>;
}

export interface Segment {
  /** The block's tag, or `notice` for lines outside every block (the "left out to fit" line). */
  name: string;
  text: string;
}

export type ResendKind = 'whole' | 'changed' | 'unchanged';

export interface ResendPlan {
  kind: ResendKind;
  /** What to send ('' when unchanged). */
  text: string;
  /** The record of the copy the conversation holds once `text` is delivered. */
  copy: MemoryCopy;
  /** The blocks sent again (changed) and those now gone. */
  changed: string[];
  gone: string[];
}

/**
 * cyrb53 with two seeds in one pass: 106 bits, in plain arithmetic. Not a defence against anyone
 * (the files are the user's own): it tells copies apart on the per-prompt path without loading
 * node:crypto there. A long text (a part rendered again: ~8,000 characters, and its blocks) goes
 * through the same loop compiled to WebAssembly (DIGEST_WASM): in JavaScript a short process pays
 * ~1,600 instructions a character and V8's optimizing compiler on top (~27 M instructions for the
 * part and its blocks, a tenth of such a prompt's), in WebAssembly ~3 M in all. Same bits either way
 * (test/unit/memory-resend.test.ts).
 */
export function digestOf(text: string): string {
  const [a1, a2, b1, b2] = (text.length >= WASM_FROM && wasmRounds(text)) || jsRounds(text);
  return finish(a1, a2) + finish(b1, b2);
}

/** The four lanes after every character, in JavaScript. */
export function jsRounds(text: string): [number, number, number, number] {
  let a1 = 0xdeadbeef ^ 0x9e3779b9;
  let a2 = 0x41c6ce57 ^ 0x9e3779b9;
  let b1 = 0xdeadbeef ^ 0x85ebca6b;
  let b2 = 0x41c6ce57 ^ 0x85ebca6b;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a1 = Math.imul(a1 ^ c, 2654435761);
    a2 = Math.imul(a2 ^ c, 1597334677);
    b1 = Math.imul(b1 ^ c, 2654435761);
    b2 = Math.imul(b2 ^ c, 1597334677);
  }
  return [a1, a2, b1, b2];
}

/** Below this many characters the JavaScript loop costs less than making the WebAssembly instance (~3 M instructions). */
const WASM_FROM = 2048;

/**
 * jsRounds as a WebAssembly module: `d(n)` reads n UTF-16 code units from byte 16 of its memory
 * `m` (i32.load16_u), mixes each into the four lanes (i32.xor, i32.mul: Math.imul's bits) and
 * stores the lanes at bytes 0, 4, 8, 12. In text form:
 *   (func (export "d") (param $n i32) (local $i i32) (local $a1 i32) (local $a2 i32) (local $b1 i32) (local $b2 i32) (local $c i32)
 *     a1..b2 = the seeds of jsRounds
 *     (block (loop (br_if 1 (i32.ge_u $i $n)) (local.set $c (i32.load16_u offset=16 (i32.shl $i 1)))
 *       (local.set $a1 (i32.mul (i32.xor $a1 $c) 2654435761)) … $a2, $b1, $b2 likewise … (local.set $i (i32.add $i 1)) (br 0)))
 *     (i32.store offset=0 0 $a1) … offset=4 $a2, 8 $b1, 12 $b2)
 *   (memory (export "m") 1)
 */
const DIGEST_WASM = 'AGFzbQEAAAABBQFgAX8AAwIBAAUDAQABBwkCAWQAAAFtAgAKmwEBmAEBBn9B1o7rhAQhAkHu78b/fSEDQYTpmdoFIQRBvIi0oXwhBQJAA0AgASAATw0BIAFBAXQvABAhBiACIAZzQbHz3fF5bCECIAMgBnNBlcnV+QVsIQMgBCAGc0Gx893xeWwhBCAFIAZzQZXJ1fkFbCEFIAFBAWohAQwACwtBACACNgIAQQAgAzYCBEEAIAQ2AghBACAFNgIMCw==';

interface DigestWasm {
  d: (n: number) => void;
  m: WebAssembly.Memory;
}
let wasm: DigestWasm | null | undefined;

/** The four lanes by the WebAssembly module; undefined where there is no WebAssembly (node --jitless). */
export function wasmRounds(text: string): [number, number, number, number] | undefined {
  if (wasm === undefined) {
    try {
      wasm = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(DIGEST_WASM, 'base64'))).exports as unknown as DigestWasm;
    } catch {
      wasm = null;
    }
  }
  if (!wasm) return undefined;
  const need = 16 + text.length * 2;
  if (wasm.m.buffer.byteLength < need) wasm.m.grow(Math.ceil((need - wasm.m.buffer.byteLength) / 65536));
  // UTF-16 code units as they are, lone surrogates too: what charCodeAt gives.
  Buffer.from(wasm.m.buffer).write(text, 16, 'utf16le');
  wasm.d(text.length);
  const lanes = new Int32Array(wasm.m.buffer, 0, 4);
  return [lanes[0], lanes[1], lanes[2], lanes[3]];
}

function finish(h1: number, h2: number): string {
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

const OPEN = /^<([a-z][a-z0-9_]*)>$/;

/**
 * The memory part cut into its top-level blocks (`<tag>` … `</tag>`, each on its own line, as
 * renderMemory writes them); lines outside every block are gathered as `notice`. Text inside a
 * block is neutralised, so no line within can close it early. A block is taken as one slice of
 * the part, found by its closing line, not as its lines split and joined again: the prompt after
 * a tool call cuts a part of ~5,000–8,000 characters here, and ~35 KB of young allocation (a
 * string per line, the joins) was a share of what pushed it into a scavenge (bench/README.md,
 * after13).
 */
export function splitBlocks(memory: string): Segment[] {
  return cutBlocks(memory).segments;
}

/**
 * splitBlocks' segments, and the part as its pieces in order: each line outside every block (its
 * text) and each block (its segment's index). The part is exactly its pieces joined by newlines.
 */
function cutBlocks(memory: string): { segments: Segment[]; pieces: (string | number)[] } {
  const segments: Segment[] = [];
  const pieces: (string | number)[] = [];
  const outside: string[] = [];
  for (let pos = 0; pos <= memory.length; ) {
    const end = lineEnd(memory, pos);
    const tag = memory.charCodeAt(pos) === 60 ? OPEN.exec(memory.slice(pos, end))?.[1] : undefined;
    if (tag) {
      // An unclosed block (a cut render) is kept as it is: it is still what the agent would read.
      const close = closingEnd(memory, tag, end);
      pieces.push(segments.length);
      segments.push({ name: tag, text: memory.slice(pos, close) });
      pos = close + 1;
      continue;
    }
    const line = memory.slice(pos, end);
    pieces.push(line);
    if (line.trim()) outside.push(line);
    pos = end + 1;
  }
  if (outside.length) segments.push({ name: 'notice', text: outside.join('\n') });
  return { segments: numbered(segments), pieces };
}

/** Segments of a name seen before renamed `name#2`, `name#3`…, so that each is told apart. */
export function numbered(segments: Segment[]): Segment[] {
  const seen = new Map<string, number>();
  return segments.map((s) => {
    const n = (seen.get(s.name) ?? 0) + 1;
    seen.set(s.name, n);
    return n === 1 ? s : { ...s, name: `${s.name}#${n}` };
  });
}

/** Where the line starting at `pos` ends (its newline, or the text's end). */
function lineEnd(text: string, pos: number): number {
  const end = text.indexOf('\n', pos);
  return end < 0 ? text.length : end;
}

/** Where the first line `</tag>` after `from` (a line's end) ends; the text's end when there is none. */
function closingEnd(text: string, tag: string, from: number): number {
  const close = `\n</${tag}>`;
  for (let at = text.indexOf(close, from); at >= 0; at = text.indexOf(close, at + 1)) {
    const end = at + close.length;
    if (end === text.length || text.charCodeAt(end) === 10) return end;
  }
  return text.length;
}

/** A segment's digest known already: reused only for a segment whose text is this very text. */
export type KnownDigests = Record<string, { text?: unknown; digest?: unknown } | undefined>;

/**
 * The record of a memory part given whole: each segment's digestOf, and the part's digest composed
 * from them. The part's digest is digestOf of its outline: its pieces in order (cutBlocks), a line
 * outside every block as its text, a block as its digest. Two parts with the same outline have the
 * same lines outside their blocks and, block by block, the same digest: so a part's digest is
 * as strong as cyrb53 over each block (and over the outline), the same nonlinear hash, and a change
 * anywhere in a block changes that block's digest with it. What it spares: a prompt after a tool
 * call changes the session state's block alone, and its part (~8,000 characters) is then digested
 * as that short block and an outline of ~300 characters, with every other block's digest `known`
 * (the render cache's, for a block whose text is the same), where digestOf over the whole part
 * made the WebAssembly instance (a V8 worker woken and a timer thread armed, both joined at exit:
 * bench/README.md prompt17). Not the digest of the part's text that builds before 2026-11-29
 * night recorded: such a record is read by its blocks (planResend).
 */
export function copyOf(memory: string, known?: KnownDigests): Required<MemoryCopy> {
  const { segments, pieces } = cutBlocks(memory);
  const blocks: Record<string, string> = {};
  for (const { name, text } of segments) {
    const kept = known?.[name];
    blocks[name] = kept && kept.text === text && typeof kept.digest === 'string' ? kept.digest : digestOf(text);
  }
  const outline = pieces.map((piece) => (typeof piece === 'string' ? `-${piece}` : `=${blocks[segments[piece].name]}`)).join('\n');
  return { digest: digestOf(outline), blocks };
}

/** The digests `digests` (a copy's blocks) of the segments of `memory`, each with its text: copyOf's `known`. */
export function knownDigests(memory: string, digests: Record<string, unknown>): KnownDigests {
  return Object.fromEntries(splitBlocks(memory).map((s) => [s.name, { text: s.text, digest: digests[s.name] }]));
}

function header(where: MemoryWhere, changed: string[], gone: string[], whole: boolean): string {
  const what = whole
    ? 'the copy below replaces it whole'
    : `each block below replaces the block of the same name in that copy; the blocks not repeated here are unchanged${gone.length ? `; now empty: ${gone.join(', ')}` : ''}`;
  return neutralizeTags(`[wmem: your working memory changed since the copy given earlier in this conversation (${changed.length ? changed.join(', ') : 'blocks removed'}): ${what}. The files are ${where.overview} and ${where.scratch}.]`);
}

/**
 * What to send of `memory` to a conversation that holds `held` (undefined: it holds no copy, as
 * on a first prompt or after a compaction). `whole`: send it whole even when only part changed
 * (a record from before block digests, or a caller that had to shrink the part to fit).
 * `digest` and `blocks`: copyOf's digest of the part and of its segments, when the caller has them.
 */
export function planResend(memory: string, held: MemoryCopy | undefined, where: MemoryWhere, options: { whole?: boolean; digest?: string; blocks?: Record<string, string> } = {}): ResendPlan {
  // The usual prompt: nothing changed, and one pass over the text tells (none when the render
  // cache kept the digest with the text: options.digest is copyOf(memory).digest).
  const digest = options.digest ?? copyOf(memory).digest;
  if (held && held.digest === digest) return { kind: 'unchanged', text: '', copy: held, changed: [], gone: [] };
  const segments = splitBlocks(memory);
  // options.blocks: each segment's digestOf, kept with the render (app/context.ts).
  const copy: MemoryCopy = { digest, blocks: Object.fromEntries(segments.map((s) => [s.name, options.blocks?.[s.name] ?? digestOf(s.text)])) };
  if (!held) return { kind: 'whole', text: memory, copy, changed: [], gone: [] };
  const before = held.blocks ?? {};
  const changed = segments.filter((s) => before[s.name] !== copy.blocks![s.name]);
  const gone = Object.keys(before).filter((name) => !(name in copy.blocks!) && name !== 'notice');
  // Every block as held, under another part digest (a record of a build that digested the part's
  // text whole, or lines outside the blocks that differ in blank lines alone): the conversation's
  // copy is current, and the record takes the digest now (the caller saves it).
  if (held.blocks && !changed.length && Object.keys(before).every((name) => name in copy.blocks!)) return { kind: 'unchanged', text: '', copy, changed: [], gone: [] };
  const names = changed.map((s) => s.name);
  const whole: ResendPlan = { kind: 'whole', text: `${header(where, names, gone, true)}\n${memory}`, copy, changed: names, gone };
  if (options.whole || !held.blocks) return whole;
  const text = [header(where, names, gone, false), ...changed.map((s) => s.text)].join('\n');
  // When every block changed the whole part says the same in fewer words.
  return text.length < whole.text.length ? { kind: 'changed', text, copy, changed: names, gone } : whole;
}
