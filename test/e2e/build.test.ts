// The per-prompt bundle (dist/fast/fast.js) must stay one file that loads nothing but Node
// built-ins up front: every heavy or rarely used module is reached through a dynamic import that
// points into the full build. A wrong path there would only fail on the rare run that needs it
// (a changed overview.md, a first token count, a hook), so each one is checked to exist.
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';

const leanDir = path.join(ROOT, 'dist', 'fast');
const lean = readFileSync(path.join(leanDir, 'fast.js'), 'utf8');

describe('the lean per-prompt bundle', () => {
  it('is a single file', () => {
    expect(readdirSync(leanDir)).toEqual(['fast.js']);
  });

  it('statically imports only Node built-ins', () => {
    const staticImports = [...lean.matchAll(/^import\s[^;]*?from\s+["']([^"']+)["']/gm)].map((m) => m[1]);
    expect(staticImports.length).toBeGreaterThan(0);
    expect(staticImports.filter((spec) => !spec!.startsWith('node:'))).toEqual([]);
  });

  it('reaches the full build through dynamic imports that resolve to built files', () => {
    const relative = [...lean.matchAll(/\bimport\(\s*["'](\.\.?\/[^"']+)["']\s*\)/g)].map((m) => m[1]!);
    expect(relative).toEqual(expect.arrayContaining(['../memory/overview.js', '../memory/tokens.js', '../commands/hook.js']));
    for (const spec of relative) expect(existsSync(path.resolve(leanDir, spec)), spec).toBe(true);
  });
});
