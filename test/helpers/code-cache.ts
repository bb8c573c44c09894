// The first line bin/wmem.js writes at the head of a stage's code cache, as the tests expect it.
import { crc32 } from 'node:zlib';

/**
 * The header for a stage's bytes and its cache's data: the two checksums and the data's length,
 * padded with spaces to a multiple of 16 bytes, so that the data starts on an aligned offset (V8
 * copies cached data that does not start on an 8-byte boundary before it deserializes it).
 */
export function codeCacheHeader(source: Buffer, data: Buffer): string {
  const line = `wmem-code-cache 1 ${crc32(source).toString(16)} ${crc32(data).toString(16)} ${data.length}`;
  return `${line.padEnd(Math.ceil((line.length + 1) / 16) * 16 - 1)}\n`;
}
