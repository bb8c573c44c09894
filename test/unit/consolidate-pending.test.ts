// nothingPending (src/ops/consolidate/pending.ts) lets a session's end skip loading the
// consolidation. It must never say "nothing" where the consolidation would fold, index or warn
// about something; and on a small scratch.md it must say so wherever the consolidation finds
// nothing, or it would save nothing. Both are held against a dry run of the consolidation itself
// on generated scratch files, detail files, overviews and last-consolidated times.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, readdir, rename, rm, symlink, unlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { makeSession, type TestSession } from '../helpers/history-session.js';
import { nothingPending } from '../../src/ops/consolidate/pending.js';
import { consolidateSession } from '../../src/ops/consolidate/consolidate.js';
import { readMeta, writeMeta } from '../../src/store/session.js';
import { readTemplate } from '../../src/store/templates.js';

const HEADER = '<!-- wmem scratch v1: a write-ahead log of notes -->';
const NOTE = '- [2026-03-01T10:00:00Z] (importance: 0.5) the build uses esbuild #context';
// Lines of every kind the consolidation tells apart: header, blanks (with a CR, a tab, an NBSP, a
// byte order mark), a note, and lines that are not notes (warned about, kept).
const LINE = fc.constantFrom(HEADER, '', '   ', '\r', '\t', '\u00a0', '\ufeff', NOTE, 'not a note', '- [bad time] (importance: 0.5) x', `\ufeff${HEADER}`, `${NOTE}\r`);
const SINCE = Date.parse('2026-03-01T12:00:00Z');

const world = fc.record({
  scratch: fc.option(fc.tuple(fc.array(LINE, { maxLength: 6 }), fc.boolean()), { nil: undefined }),
  details: fc.array(fc.record({ indexed: fc.boolean(), before: fc.boolean(), title: fc.boolean() }), { maxLength: 3 }),
  consolidatedBefore: fc.boolean(),
  overview: fc.boolean(),
});

let t: TestSession;
beforeAll(async () => {
  t = await makeSession('pending-test');
});
afterAll(() => t.cleanup());

describe('nothingPending', () => {
  it('is true exactly where a small scratch.md and the detail files give the consolidation nothing to do or say', async () => {
    const template = readTemplate('overview.md');
    const { paths } = t.session;
    const base = (await readMeta(paths))!;
    let saidNothing = 0;
    await fc.assert(
      fc.asyncProperty(world, async (w) => {
        for (const name of await readdir(paths.detailDir)) await unlink(path.join(paths.detailDir, name));
        await mkdir(paths.detailDir, { recursive: true });
        if (w.scratch) await writeFile(paths.scratch, w.scratch[0].join('\n') + (w.scratch[1] ? '\n' : ''));
        else await rm(paths.scratch, { force: true });
        const index: string[] = [];
        for (const [i, d] of w.details.entries()) {
          const file = path.join(paths.detailDir, `d${i}.md`);
          await writeFile(file, d.title ? `---\ntitle: detail ${i}\n---\nbody ${i}\n` : `body ${i}\n`);
          const at = new Date(SINCE + (d.before ? -3_600_000 : 3_600_000));
          await utimes(file, at, at);
          if (d.indexed) index.push(`- detail/d${i}.md — detail ${i}`);
        }
        if (w.overview) await writeFile(paths.overview, template + (index.length ? `\n${index.join('\n')}\n` : ''));
        else await rm(paths.overview, { force: true });
        await writeMeta(paths, { ...base, ...(w.consolidatedBefore ? { lastConsolidatedAt: new Date(SINCE).toISOString() } : {}) });

        const warnings: string[] = [];
        const dry = await consolidateSession(t.session, { dryRun: true }, { now: () => new Date(SINCE + 7_200_000), warn: (m) => warnings.push(m) }).then(
          (r) => ({ nothing: r.nothingToDo && !r.unparsed.length && !warnings.length }),
          () => ({ nothing: false }),
        );
        const pending = await nothingPending(t.session).catch(() => false);
        if (pending) saidNothing++;
        expect(pending).toBe(dry.nothing);
      }),
      { numRuns: 150 },
    );
    // The generator reaches both answers.
    expect(saidNothing).toBeGreaterThan(5);
  });

  it('leaves a large scratch.md to the consolidation', async () => {
    const { paths } = t.session;
    await writeFile(paths.overview, readTemplate('overview.md'));
    await writeFile(paths.scratch, `${HEADER}\n${' '.repeat(70 * 1024)}\n`);
    expect(await nothingPending(t.session)).toBe(false);
  });

  it('never reads a detail file that is a link out of the session, so its text cannot reach overview.md', async () => {
    const { paths } = t.session;
    const outside = await mkdtemp(path.join(os.tmpdir(), 'wmem-outside-'));
    try {
      const target = path.join(outside, 'secret.md');
      await writeFile(target, '---\ntitle: PLANTED outside title\n---\nPLANTED outside body\n');
      for (const name of await readdir(paths.detailDir)) await unlink(path.join(paths.detailDir, name));
      await writeFile(paths.overview, readTemplate('overview.md'));
      await writeFile(paths.scratch, `${HEADER}\n`);
      await symlink(target, path.join(paths.detailDir, 'planted.md'));
      // The only detail file is the link: nothing is pending, and a real consolidation folds nothing from it.
      expect(await nothingPending(t.session)).toBe(true);
      await consolidateSession(t.session, {}, { now: () => new Date(SINCE), warn: () => {} });
      expect(await readFile(paths.overview, 'utf8')).not.toContain('PLANTED');
    } finally {
      await unlink(path.join(paths.detailDir, 'planted.md')).catch(() => {});
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('never reads detail/ itself when it is a link out of the session, and still reads a link that stays inside', async () => {
    const { paths } = t.session;
    const outside = await mkdtemp(path.join(os.tmpdir(), 'wmem-outside-'));
    const kept = `${paths.detailDir}.kept`;
    try {
      await writeFile(path.join(outside, 'secret.md'), '---\ntitle: PLANTED outside title\n---\nPLANTED outside body\n');
      await writeFile(paths.overview, readTemplate('overview.md'));
      await writeFile(paths.scratch, `${HEADER}\n`);
      // A plain file in a folder that leads out is no plainer than a link: nothing is pending.
      await rename(paths.detailDir, kept);
      await symlink(outside, paths.detailDir);
      expect(await nothingPending(t.session)).toBe(true);
      await consolidateSession(t.session, {}, { now: () => new Date(SINCE), warn: () => {} });
      expect(await readFile(paths.overview, 'utf8')).not.toContain('PLANTED');
      // A link to a file inside the session is read as before: it waits to be indexed.
      await unlink(paths.detailDir);
      await rename(kept, paths.detailDir);
      for (const name of await readdir(paths.detailDir)) await unlink(path.join(paths.detailDir, name));
      await writeFile(path.join(paths.dir, 'inside.md'), '---\ntitle: inside title\n---\ninside body\n');
      await symlink(path.join(paths.dir, 'inside.md'), path.join(paths.detailDir, 'inside.md'));
      expect(await nothingPending(t.session)).toBe(false);
    } finally {
      await unlink(paths.detailDir).catch(() => {});
      await rename(kept, paths.detailDir).catch(() => {});
      await unlink(path.join(paths.detailDir, 'inside.md')).catch(() => {});
      await rm(path.join(paths.dir, 'inside.md'), { force: true });
      await rm(outside, { recursive: true, force: true });
    }
  });
});
