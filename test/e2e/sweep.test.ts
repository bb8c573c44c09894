// End-to-end: `wmem sweep` over a home with many projects, old and new cache files (aged with
// utimes) and state left by deleted sessions; memory files are never touched.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runJson, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const DAY = 86_400;
const nowS = () => Date.now() / 1000;

interface Project {
  dir: string;
  session: string;
  memoryFiles: Map<string, Buffer>;
}

/** A project with a session, memory in every protected place, and `fresh` + `old` cache files. */
async function makeProject(name: string, fresh: number, old: number): Promise<Project> {
  const cwd = path.join(box.root, 'work', name);
  await mkdir(cwd, { recursive: true });
  const { id, project, path: sessionDir } = await runJson(box, ['init'], { cwd });
  const wm = path.join(sessionDir, 'working-memory');
  await writeFile(path.join(sessionDir, 'messages.jsonl'), '{"role":"user","content":"hi"}\n');
  await writeFile(path.join(wm, 'detail', 'old-notes.md'), '# old\n');
  await writeFile(path.join(wm, 'archive', 'messages-1.jsonl'), '{"role":"user","content":"old"}\n');
  // Protected files aged far past any TTL: age must not matter for them.
  for (const file of ['messages.jsonl', 'working-memory/overview.md', 'working-memory/scratch.md', 'working-memory/detail/old-notes.md', 'working-memory/archive/messages-1.jsonl']) {
    await utimes(path.join(sessionDir, file), nowS() - 400 * DAY, nowS() - 400 * DAY);
  }
  const cache = path.join(project, 'cache', 'tool-outputs');
  await mkdir(cache, { recursive: true });
  for (let i = 0; i < fresh; i++) await writeFile(path.join(cache, `fresh-${i}.txt`), 'x'.repeat(100));
  for (let i = 0; i < old; i++) {
    const file = path.join(cache, `old-${i}.txt`);
    await writeFile(file, 'y'.repeat(50));
    await utimes(file, nowS() - (8 + i) * DAY, nowS() - (8 + i) * DAY);
  }
  const memoryFiles = new Map<string, Buffer>();
  for (const file of ['messages.jsonl', 'meta.json', 'working-memory/overview.md', 'working-memory/scratch.md', 'working-memory/detail/old-notes.md', 'working-memory/archive/messages-1.jsonl']) {
    memoryFiles.set(path.join(sessionDir, file), await readFile(path.join(sessionDir, file)));
  }
  return { dir: project, session: id, memoryFiles };
}

async function expectMemoryIntact(projects: Project[]) {
  for (const p of projects) for (const [file, bytes] of p.memoryFiles) expect((await readFile(file)).equals(bytes), file).toBe(true);
}

describe('sweep', () => {
  it('keeps caches bounded over every project; a dry run deletes nothing', async () => {
    const projects = [await makeProject('a', 5, 4), await makeProject('b', 12, 0), await makeProject('c', 0, 6), await makeProject('d', 3, 3)];
    const count = async () => (await Promise.all(projects.map((p) => readdir(path.join(p.dir, 'cache', 'tool-outputs'))))).map((l) => l.length);
    expect(await count()).toEqual([9, 12, 6, 6]);

    const dry = await runJson(box, ['sweep', '--max-files', '10', '--dry-run']);
    expect(dry).toMatchObject({ filesScanned: 33 + 4 /* each project's current */, filesDeleted: 4 + 2 + 6 + 3, bytesReclaimed: (4 + 6 + 3) * 50 + 2 * 100, errors: [], dryRun: true });
    expect(await count()).toEqual([9, 12, 6, 6]);

    const real = await runJson(box, ['sweep', '--max-files', '10']);
    expect(real).toMatchObject({ filesScanned: 37, filesDeleted: 15, bytesReclaimed: 850, errors: [] });
    expect(await count()).toEqual([5, 10, 0, 3]);
    expect((await readdir(path.join(projects[0].dir, 'cache', 'tool-outputs'))).sort()).toEqual(['fresh-0.txt', 'fresh-1.txt', 'fresh-2.txt', 'fresh-3.txt', 'fresh-4.txt']);
    await expectMemoryIntact(projects);

    const again = await runJson(box, ['sweep', '--max-files', '10']);
    expect(again).toMatchObject({ filesDeleted: 0, bytesReclaimed: 0, errors: [] });
  });

  it('uses the defaults (300 files, 7 days) and --ttl', async () => {
    const p = await makeProject('a', 3, 5);
    expect(await runJson(box, ['sweep', '--dry-run'])).toMatchObject({ filesDeleted: 5 });
    expect(await runJson(box, ['sweep', '--dry-run', '--ttl', '30d'])).toMatchObject({ filesDeleted: 0 });
    expect(await runJson(box, ['sweep', '--dry-run', '--ttl', '1h'])).toMatchObject({ filesDeleted: 5 });
    const text = await box.run(['sweep']);
    expect(text.exitCode).toBe(0);
    expect(String(text.stdout)).toMatch(/^scanned \d+ files in 1 project; deleted 5 \(250 B\)/);
    await expectMemoryIntact([p]);
  });

  it('removes state left by deleted sessions, never a live session', async () => {
    const p = await makeProject('a', 0, 0);
    const old = nowS() - 2 * DAY;
    // A session deleted by hand: its state/ folder is left.
    await mkdir(path.join(p.dir, 'gone-session', 'state'), { recursive: true });
    await writeFile(path.join(p.dir, 'gone-session', 'state', 'claude-hooks.json'), '{}');
    // `current` naming a session that is gone (in another project).
    const q = await makeProject('b', 0, 0);
    await rm(path.join(q.dir, q.session), { recursive: true });
    // A stale lock and old temp files in the live session (wmem's own, and write-file-atomic's
    // beside overview.md); a fresh temp file stays, and so do a user's backups that only look alike.
    const live = path.join(p.dir, p.session);
    await mkdir(path.join(live, '.lock'));
    await utimes(path.join(live, '.lock'), old, old);
    // And the temp of a detail file whose write failed on a full disk (the archive could not clean up).
    await mkdir(path.join(live, 'working-memory', 'detail'), { recursive: true });
    const stale = [
      path.join(live, '.meta.json.1700000000000.456.tmp'),
      path.join(live, 'working-memory', 'overview.md.2233445566'),
      path.join(live, 'working-memory', 'detail', '.20261101T000000000Z-transcript.md.20261101T000000000Zb.4242.tmp'),
    ];
    const backups = [path.join(live, 'messages.jsonl.1'), path.join(live, 'working-memory', 'overview.md.1'), path.join(live, 'working-memory', 'plan.tmp'), path.join(live, 'working-memory', 'detail', 'plan.tmp')];
    for (const file of [...stale, ...backups]) {
      await writeFile(file, 'partial');
      await utimes(file, old, old);
    }
    await writeFile(path.join(live, 'state', '.fresh.json.1.2.tmp'), 'in flight');
    // An interrupted `wmem rm`.
    await mkdir(path.join(p.dir, '.trash-x-1', 'working-memory'), { recursive: true });
    await writeFile(path.join(p.dir, '.trash-x-1', 'working-memory', 'overview.md'), '# x\n');

    const dry = await runJson(box, ['sweep', '--dry-run']);
    expect(dry.removed).toHaveLength(7);
    await stat(path.join(p.dir, 'gone-session'));
    const result = await runJson(box, ['sweep']);
    expect(result.errors).toEqual([]);
    expect(result.removed.join('\n')).toMatch(/gone-session/);
    await expect(stat(path.join(p.dir, 'gone-session'))).rejects.toThrow();
    await expect(stat(path.join(q.dir, 'current'))).rejects.toThrow();
    await expect(stat(path.join(live, '.lock'))).rejects.toThrow();
    for (const file of stale) await expect(stat(file)).rejects.toThrow();
    await expect(stat(path.join(p.dir, '.trash-x-1'))).rejects.toThrow();
    await stat(path.join(live, 'state', '.fresh.json.1.2.tmp'));
    for (const file of backups) await stat(file);
    expect((await readFile(path.join(p.dir, 'current'), 'utf8')).trim()).toBe(p.session);
    await expectMemoryIntact([p]);
  });

  it('exits 0 on an empty home, refuses a bad --ttl', async () => {
    expect(await runJson(box, ['sweep'])).toMatchObject({ filesScanned: 0, filesDeleted: 0, bytesReclaimed: 0, errors: [] });
    const bad = await box.run(['sweep', '--ttl', 'forever']);
    expect(bad.exitCode).toBe(2);
    expect(String(bad.stderr)).toMatch(/--ttl must be an age/);
  });

  it('exits 1 when a deletion fails, reporting it', async () => {
    const p = await makeProject('a', 0, 2);
    const cache = path.join(p.dir, 'cache', 'tool-outputs');
    const { execa } = await import('execa');
    const { chmod } = await import('node:fs/promises');
    // root ignores folder permissions, so make one file immutable instead (chattr, where it works).
    const asRoot = process.getuid?.() === 0;
    const locked = path.join(cache, 'old-0.txt');
    if (asRoot) {
      const r = await execa('chattr', ['+i', locked], { reject: false });
      if (r.exitCode !== 0) return; // no way to make a deletion fail here
    } else await chmod(cache, 0o500);
    try {
      const result = await box.run(['sweep', '--json']);
      expect(result.exitCode).toBe(1);
      const report = JSON.parse(String(result.stdout));
      expect(report.errors.length).toBeGreaterThan(0);
      expect(report.errors[0].path).toContain('old-');
    } finally {
      if (asRoot) await execa('chattr', ['-i', locked], { reject: false });
      else await chmod(cache, 0o700);
    }
  });
});
