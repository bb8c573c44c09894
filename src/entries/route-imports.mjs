// import() in a bundle that bin/wmem.js compiles through node:vm (from its V8 code cache,
// loadStage): a vm.Script has no loader for import() on Node 20, so each import() left in such a
// bundle (an external package, the tokenizer, the search index) calls __wmemImport, bin/wmem.js's
// own import() when it compiled the bundle, else Node's (a plain require() of it). Used by
// build-first-hook.mjs for the hook stages, and run on dist/fast/fast-compact.cjs by the build
// (`node src/entries/route-imports.mjs FILE`: the banner after the bundle's first line).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const IMPORT_BANNER = '\nconst __wmemImport = module.__wmemImport ?? ((spec) => import(spec));\nconst __wmemLoad = module.__wmemLoad;';

/** A bundle's import() calls made __wmemImport() calls, but the banner's own (the last resort). */
export function importsRouted(code) {
  const banner = code.indexOf('\n', code.indexOf('const __wmemImport =')) + 1;
  return code.slice(0, banner) + code.slice(banner).replace(/(?<![\w$.])import\(/g, '__wmemImport(');
}

/** `code` with IMPORT_BANNER after its first line (esbuild's banner), its import()s routed; as it is when routed already. */
export function withImportsRouted(code) {
  if (code.includes('\nconst __wmemImport =')) return code;
  const first = code.indexOf('\n');
  return importsRouted(code.slice(0, first) + IMPORT_BANNER + code.slice(first));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const file of process.argv.slice(2)) writeFileSync(file, withImportsRouted(readFileSync(file, 'utf8')));
}
