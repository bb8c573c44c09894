// A real tokenizer (o200k_base, the encoding of current OpenAI models, via gpt-tokenizer) for
// when the agent reports no usage. It takes ~130 ms to load, so it is imported only on a miss.

export type TokenCounter = (text: string) => number;

export async function loadTokenCounter(): Promise<TokenCounter> {
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  return (text: string) => (text ? countTokens(text) : 0);
}
