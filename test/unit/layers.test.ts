// The layering the README's Architecture section draws, held against the imports in src/: calls
// run downward, src/ui/ is the base that imports nothing of wmem, and the entries sit at the top.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sources(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every relative import of a file (static, type-only or import()), as a path from src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]!);
  return specs.map((s) => path.relative(SRC, path.resolve(path.dirname(file), s)).split(path.sep).join('/').replace(/\.js$/, '.ts'));
}

const EDGES = sources().flatMap((file) => {
  const from = path.relative(SRC, file).split(path.sep).join('/');
  return importsOf(file).map((to) => ({ from, to }));
});

const inside = (p: string, folders: string[]) => folders.some((f) => (f.endsWith('/') ? p.startsWith(f) : p === f));
const crossings = (from: string[], to: string[], allowed: string[] = []) =>
  EDGES.filter((e) => inside(e.from, from) && inside(e.to, to) && !allowed.includes(`${e.from} -> ${e.to}`)).map(
    (e) => `${e.from} -> ${e.to}`,
  );

const BELOW_USE_CASES = ['ui/', 'options.ts', 'memory/', 'render/', 'store/', 'history/', 'ops/', 'agents/', 'report/'];
const HOSTS = ['cli.ts', 'entries/', 'commands/', 'mcp/', 'views/'];

describe('layers', () => {
  it('reads the imports it judges', () => {
    expect(EDGES.length).toBeGreaterThan(100);
    expect(EDGES).toContainEqual({ from: 'entries/fast.ts', to: 'commands/context.ts' });
  });

  it('src/ui/ imports nothing of wmem', () => {
    expect(EDGES.filter((e) => e.from.startsWith('ui/')).map((e) => e.to)).toEqual([]);
  });

  it('only cli.ts and the entries themselves import an entry, and nothing imports cli.ts', () => {
    expect(crossings(BELOW_USE_CASES.concat('app/', 'commands/', 'mcp/', 'views/'), ['entries/', 'cli.ts'])).toEqual([]);
  });

  it('nothing below the use cases imports a use case or a host', () => {
    expect(crossings(BELOW_USE_CASES, ['app/', ...HOSTS])).toEqual([]);
  });

  it('use cases import no host', () => {
    expect(crossings(['app/'], HOSTS)).toEqual([]);
  });

  it('history/ and store/ know no agent: they import nothing of agents/ or report/ (what a line means is the caller\'s)', () => {
    expect(crossings(['history/', 'store/'], ['agents/', 'report/'])).toEqual([]);
  });

  it('history/ and store/ import no op, and store/ reads history/ only to index archived messages', () => {
    expect(crossings(['history/', 'store/'], ['ops/'])).toEqual([]);
    const allowed = ['store/search-corpus.ts -> history/model/lines.ts', 'store/search-corpus.ts -> history/model/messages.ts'];
    expect(crossings(['store/'], ['history/'], allowed)).toEqual([]);
  });

  it('history/model/ is the pure line and message model: no file I/O, and nothing of the compaction or the streams', () => {
    const model = sources(path.join(SRC, 'history', 'model'));
    expect(model.length).toBeGreaterThan(5);
    const io = model.filter((file) => /from\s*'node:(fs|fs\/promises|child_process)'/.test(readFileSync(file, 'utf8')));
    expect(io.map((f) => path.relative(SRC, f))).toEqual([]);
    expect(crossings(['history/model/'], ['history/compaction/', 'history/stream/', 'store/'])).toEqual([]);
  });

  it('the streams know no compaction stage', () => {
    expect(crossings(['history/stream/'], ['history/compaction/'])).toEqual([]);
  });
});
