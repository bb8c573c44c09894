// `wmem compact --finish` started detached (after a quick cut's commit, or by a search): the
// command line it is given (src/app/finish-background.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { finishInBackground } from '../../src/app/finish-background.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A stand-in for bin/wmem.js that writes what it was given to `out`. */
function fakeBin(): { bin: string; out: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wmem-finish-'));
  dirs.push(dir);
  const out = path.join(dir, 'seen.json');
  const bin = path.join(dir, 'fake-wmem.cjs');
  // Written whole, then renamed: the test never reads it half written.
  const seen = `JSON.stringify({ args: process.argv.slice(2) })`;
  writeFileSync(bin, `const fs = require('node:fs'); fs.writeFileSync(${JSON.stringify(out + '.tmp')}, ${seen}); fs.renameSync(${JSON.stringify(out + '.tmp')}, ${JSON.stringify(out)});\n`);
  return { bin, out };
}

it('starts compact --finish for the session, detached', async () => {
  const where = { home: '/h', cwd: '/c', env: { PATH: process.env.PATH } };

  const { bin, out } = fakeBin();
  expect(finishInBackground(bin, { ...where, env: { ...process.env } }, 's2')).toBe(true);
  const deadline = Date.now() + 60_000;
  while (!existsSync(out) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const seen = JSON.parse(readFileSync(out, 'utf8'));
  expect(seen.args).toEqual(expect.arrayContaining(['compact', '--finish', '--session', 's2']));
}, 90_000);
