// Which `wmem compact --finish` may wait long for the session's lock: only the one a quick cut
// hands to its link check's child (it can meet a full way holding the lock for minutes); the one
// started after a commit or by a search keeps the lock's usual wait (src/app/compact.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { finishCommand, finishInBackground, HANDED_OVER_FINISH } from '../../src/app/finish-background.js';

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
  const seen = `JSON.stringify({ args: process.argv.slice(2), handedOver: process.env.${HANDED_OVER_FINISH} ?? null })`;
  writeFileSync(bin, `const fs = require('node:fs'); fs.writeFileSync(${JSON.stringify(out + '.tmp')}, ${seen}); fs.renameSync(${JSON.stringify(out + '.tmp')}, ${JSON.stringify(out)});\n`);
  return { bin, out };
}

it('marks the handed-over finishing, and only it', async () => {
  const where = { home: '/h', cwd: '/c', env: { PATH: process.env.PATH } };
  const command = finishCommand('/x/wmem.js', where, 's1')!;
  expect(command.env?.[HANDED_OVER_FINISH]).toBe('1');
  expect(command.args).toEqual(expect.arrayContaining(['/x/wmem.js', 'compact', '--finish', '--session', 's1']));

  const { bin, out } = fakeBin();
  expect(finishInBackground(bin, { ...where, env: { ...process.env } }, 's2')).toBe(true);
  const deadline = Date.now() + 60_000;
  while (!existsSync(out) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const seen = JSON.parse(readFileSync(out, 'utf8'));
  expect(seen.args).toEqual(expect.arrayContaining(['compact', '--finish', '--session', 's2']));
  expect(seen.handedOver).toBeNull();
}, 90_000);
