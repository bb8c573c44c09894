// Pure: fixed-size token windows with overlap (a hand-written MEMORY.md is cut into 400-token
// chunks overlapping by 80, so a fact split by one cut is whole in the next chunk).

export interface TokenRange {
  start: number;
  end: number;
}

export function chunkRanges(tokenCount: number, size = 400, overlap = 80): TokenRange[] {
  if (size <= 0 || overlap < 0 || overlap >= size) throw new Error(`bad chunking: size ${size}, overlap ${overlap}`);
  if (tokenCount === 0) return [];
  const ranges: TokenRange[] = [];
  for (let start = 0; ; start += size - overlap) {
    const end = Math.min(tokenCount, start + size);
    ranges.push({ start, end });
    if (end === tokenCount) break;
  }
  return ranges;
}

export interface Tokenizer {
  encode(text: string): number[];
  decode(tokens: number[]): string;
}

export interface TextChunk extends TokenRange {
  text: string;
}

export function chunkText(text: string, tokenizer: Tokenizer, size = 400, overlap = 80): TextChunk[] {
  const tokens = tokenizer.encode(text);
  return chunkRanges(tokens.length, size, overlap).map((r) => ({ ...r, text: tokenizer.decode(tokens.slice(r.start, r.end)) }));
}

export async function loadTokenizer(): Promise<Tokenizer> {
  const { encode, decode } = await import('gpt-tokenizer/encoding/o200k_base');
  // Text that merely mentions a special token (<|endoftext|>) is text, not a control token.
  return { encode: (text) => encode(text, { disallowedSpecial: new Set() }), decode: (tokens) => decode(tokens) };
}
