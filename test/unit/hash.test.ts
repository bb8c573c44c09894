// The streaming sha256 of src/memory/hash.ts (JavaScript for small input, node:crypto past
// 256 KiB) gives node:crypto's digest for any input cut into any chunks.
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { sha256, sha256Hex } from '../../src/memory/hash.js';
import { bytesHash } from '../../src/memory/name-hash.js';

describe('sha256', () => {
  it('equals node:crypto for any bytes in any chunks, short or long', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.uint8Array({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 80 }), fc.integer({ min: 0, max: 1 << 17 }).map((n) => new Uint8Array(n).fill(n & 255))), { maxLength: 6 }), (chunks) => {
        const ours = sha256();
        const theirs = createHash('sha256');
        for (const c of chunks) {
          ours.update(c);
          theirs.update(typeof c === 'string' ? Buffer.from(c, 'utf8') : c);
        }
        expect(ours.digest('hex')).toBe(theirs.digest('hex'));
      }),
      { numRuns: 300 },
    );
  });

  // Workspace ids kept on disk: the same digest as node:crypto's, which made them before.
  it('sha256Hex equals node:crypto for any text, short or past 256 KiB', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.integer({ min: (1 << 18) - 2, max: (1 << 18) + 2 }).map((n) => 'x'.repeat(n))), (text) => {
        expect(sha256Hex(text)).toBe(createHash('sha256').update(text).digest('hex'));
      }),
      { numRuns: 200 },
    );
  });

  it('is not fooled by a caller reusing its buffer', () => {
    const buffer = Buffer.from('first chunk');
    const ours = sha256().update(buffer);
    buffer.write('other bytes');
    expect(ours.update('!').digest('hex')).toBe(createHash('sha256').update('first chunk!').digest('hex'));
  });

  it('hashes the padding edges (55, 56, 63, 64 and 65 bytes) like node:crypto', () => {
    for (const n of [0, 55, 56, 63, 64, 65, 119, 120]) {
      const data = new Uint8Array(n).map((_, i) => i * 7);
      expect(sha256().update(data).digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
    }
  });
});

// PreCompact's transcript fingerprint (src/history/compaction/archive-transcript.ts).
describe('bytesHash', () => {
  it('names the bytes, wherever they sit in memory, and tells any one changed byte', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.integer({ min: 0, max: 7 }), fc.nat(), (bytes, shift, at) => {
        const inside = new Uint8Array(bytes.length + shift);
        inside.set(bytes, shift);
        const view = inside.subarray(shift);
        expect(bytesHash(view)).toMatch(/^[0-9a-f]{16}$/);
        expect(bytesHash(view)).toBe(bytesHash(Uint8Array.from(bytes)));
        if (!bytes.length) return;
        const changed = Uint8Array.from(bytes);
        changed[at % bytes.length] ^= 1 + (at % 255);
        expect(bytesHash(changed)).not.toBe(bytesHash(bytes));
      }),
      { numRuns: 300 },
    );
  });
});
