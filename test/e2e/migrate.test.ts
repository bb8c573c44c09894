// End-to-end: `wmem migrate` on realistic inputs: legacy flat sessions built from the real
// transcripts, a hand-written MEMORY.md, and the OpenCode plugin's files. Killed in the middle,
// then rerun: migrate-kill.test.ts (the slow tier).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runJson, sandbox, type Sandbox } from '../helpers/cli.js';
import { expectMigrated, legacySessions, projectDir } from '../helpers/legacy-sessions.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

describe('migrate legacy', () => {
  it('--dry-run lists and changes nothing; the run migrates; a rerun does nothing', async () => {
    const dir = await projectDir(box);
    const originals = await legacySessions(box, dir, 5);
    const before = (await readdir(dir)).sort();
    const dry = await runJson(box, ['migrate', 'legacy', '--dry-run']);
    expect(dry.sessions.map((s: any) => s.status)).toEqual(Array(5).fill('would migrate'));
    expect((await readdir(dir)).sort()).toEqual(before);
    const done = await runJson(box, ['migrate', 'legacy']);
    expect(done.sessions.map((s: any) => s.status)).toEqual(Array(5).fill('migrated'));
    await expectMigrated(box, dir, originals);
    expect((await runJson(box, ['migrate', 'legacy'])).sessions).toEqual([]);
    const sessions = JSON.stringify(await runJson(box, ['sessions']));
    for (const id of originals.keys()) expect(sessions).toContain(id);
  });

  it('a legacy meta that does not parse is reported (exit 1) and its files kept', async () => {
    const dir = await projectDir(box);
    await writeFile(path.join(dir, 'bad.jsonl'), '{"role":"user","content":"hi"}\n');
    await writeFile(path.join(dir, 'bad.meta.json'), '{nope');
    const result = await box.run(['migrate', 'legacy']);
    expect(result.exitCode).toBe(1);
    expect(String(result.stdout)).toMatch(/error: bad .*not valid JSON/);
    await stat(path.join(dir, 'bad.jsonl'));
  });
});

describe('migrate memory-md', () => {
  const memory = [
    '# Project memory',
    '',
    '## Conventions',
    ...Array.from({ length: 60 }, (_, i) => `- Rule ${i}: services talk through the queue; never call billing directly from the web tier (${i}).`),
    '',
    '## History',
    ...Array.from({ length: 40 }, (_, i) => `Session ${i}: we debugged CORS between the P2P relay and the dashboard; fixed by allowing the relay origin.`),
  ].join('\n');

  it('backs up, chunks into detail/ (400 tokens, 80 overlap), indexes, marks the seed, and leaves the file', async () => {
    const { path: sessionDir } = await runJson(box, ['init']);
    const file = path.join(box.project, 'MEMORY.md');
    await writeFile(file, memory);
    const dry = await runJson(box, ['migrate', 'memory-md', 'MEMORY.md', '--dry-run']);
    expect(dry.chunks.length).toBeGreaterThan(3);
    await expect(stat(`${file}.seed-backup`)).rejects.toThrow();
    const result = await runJson(box, ['migrate', 'memory-md', 'MEMORY.md']);
    expect(result.chunks).toHaveLength(dry.chunks.length);
    expect(result.chunks[1].start).toBe(320);
    expect(await readFile(file, 'utf8')).toBe(memory);
    expect(await readFile(`${file}.seed-backup`, 'utf8')).toBe(memory);
    const details = (await readdir(path.join(sessionDir, 'working-memory', 'detail'))).filter((n) => n.startsWith('memory-md-'));
    expect(details).toHaveLength(result.chunks.length);
    const first = await readFile(path.join(sessionDir, 'working-memory', 'detail', details[0]), 'utf8');
    expect(first).toMatch(/^---\nwmem: "detail"\n/);
    expect(first).toContain('kind: "memory-md"');
    expect(first).toContain('Rule 0: services talk through the queue');
    const overview = await readFile(path.join(sessionDir, 'working-memory', 'overview.md'), 'utf8');
    for (const d of details) expect(overview).toContain(`detail/${d}`);
    const meta = JSON.parse(await readFile(path.join(sessionDir, 'meta.json'), 'utf8'));
    expect(meta.seededFrom).toBe(file);
    expect(meta.seedConsolidated).toBeUndefined();
    // Idempotent: a second run writes nothing new.
    const again = await runJson(box, ['migrate', 'memory-md', 'MEMORY.md']);
    expect(again.alreadySeeded).toBe(true);
    expect((await readdir(path.join(sessionDir, 'working-memory', 'detail'))).filter((n) => n.startsWith('memory-md-'))).toHaveLength(details.length);
    const search = await box.run(['search', 'CORS relay']);
    if (search.exitCode === 0) expect(String(search.stdout)).toContain('memory-md-');
  });

  it('refuses a missing file and a changed file with an old backup', async () => {
    await runJson(box, ['init']);
    const missing = await box.run(['migrate', 'memory-md', 'NOPE.md']);
    expect(missing.exitCode).toBe(1);
    expect(String(missing.stderr)).toMatch(/NOPE\.md: no such file/);
    await writeFile(path.join(box.project, 'MEMORY.md'), 'new text');
    await writeFile(path.join(box.project, 'MEMORY.md.seed-backup'), 'old text');
    const refused = await box.run(['migrate', 'memory-md', 'MEMORY.md']);
    expect(refused.exitCode).toBe(3);
    const noArg = await box.run(['migrate', 'memory-md']);
    expect(noArg.exitCode).toBe(2);
  });
});

describe('migrate opencode', () => {
  it('core blocks → sections, working items → notes and hot state; a rerun skips', async () => {
    const oc = path.join(box.project, '.opencode');
    await mkdir(path.join(oc, 'memory-core'), { recursive: true });
    await mkdir(path.join(oc, 'memory-working'), { recursive: true });
    await writeFile(
      path.join(oc, 'memory-core', 'ses_42.json'),
      JSON.stringify({ sessionID: 'ses_42', blocks: { goal: { value: 'Migrate auth to OAuth device flow', charLimit: 1000, lastModified: 1 }, progress: { value: '- token store done\n- CLI login pending', charLimit: 2000, lastModified: 2 }, context: { value: 'Staging uses Keycloak 24.', charLimit: 1500, lastModified: 3 } }, updatedAt: 3 }),
    );
    const item = (type: string, content: string) => ({ id: content, type, content, source: 'tool', timestamp: 1763884800000, relevanceScore: 0.8, mentions: 2 });
    await writeFile(
      path.join(oc, 'memory-working', 'ses_42.json'),
      JSON.stringify({ sessionID: 'ses_42', slots: { error: [item('error', "src/auth.ts(4,7): error TS2345: Argument of type 'string' is not assignable to parameter of type 'Token'.")], decision: [item('decision', 'Store tokens in the OS keychain, not a file')], todo: [item('other', 'document the login flow')], dependency: [] }, pool: [item('file-path', 'src/auth.ts')], eventCounter: 4, updatedAt: 4 }),
    );
    const result = await box.run(['migrate', 'opencode', '.', '--json']);
    const report = JSON.parse(String(result.stdout));
    expect(report.sessions.map((s: any) => [s.kind, s.id])).toEqual([
      ['core', 'ses_42'],
      ['working', 'ses_42'],
    ]);
    const overview = String((await box.run(['show', 'overview', '--session', 'ses_42'])).stdout);
    expect(overview).toContain('Migrate auth to OAuth device flow');
    expect(overview).toContain('- CLI login pending');
    expect(overview).toContain('Staging uses Keycloak 24.');
    const scratch = String((await box.run(['show', 'scratch', '--session', 'ses_42'])).stdout);
    expect(scratch).toMatch(/\(importance: 0\.8\) Store tokens in the OS keychain, not a file #decisions/);
    expect(scratch).toContain('TODO: document the login flow');
    const memory = String((await box.run(['context', '--part', 'memory', '--session', 'ses_42'])).stdout);
    expect(memory).toMatch(/<session_state>[\s\S]*src\/auth\.ts[\s\S]*TS2345[\s\S]*<\/session_state>/);
    const again = JSON.parse(String((await box.run(['migrate', 'opencode', '.', '--json'])).stdout));
    expect(again.sessions.every((s: any) => s.skipped === 'already imported')).toBe(true);
    expect(String((await box.run(['show', 'overview', '--session', 'ses_42'])).stdout)).toBe(overview);
  });

  it('1.2 workspace-memory.json entries go to workspace memory through the gate', async () => {
    const dir = path.join(box.root, 'opencode-share', 'workspaces', 'k1');
    await mkdir(dir, { recursive: true });
    const entry = (id: string, type: string, text: string, extra = {}) => ({ id, type, text, source: 'explicit', confidence: 1, createdAt: 1763884800000, updatedAt: 1763884800000, ...extra });
    await writeFile(
      path.join(dir, 'workspace-memory.json'),
      JSON.stringify({
        version: 1,
        workspace: { root: box.project, key: 'k1' },
        limits: { maxEntries: 28, maxChars: 5200 },
        entries: [
          entry('1', 'feedback', 'The user wants small PRs with a test for each fix'),
          entry('2', 'decision', 'Use pnpm workspaces for the monorepo', { rationale: 'faster installs in CI' }),
          entry('3', 'reference', 'API key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789'),
          entry('4', 'project', 'short'),
        ],
        updatedAt: 1763884800000,
      }),
    );
    const result = await box.run(['migrate', 'opencode', dir, '--json']);
    const report = JSON.parse(String(result.stdout));
    expect(report.workspace.added).toBe(2);
    expect(report.workspace.refused).toHaveLength(2);
    const memories = String((await box.run(['memories'])).stdout);
    expect(memories).toContain('The user wants small PRs with a test for each fix');
    expect(memories).toContain('Use pnpm workspaces for the monorepo (faster installs in CI)');
    expect(memories).not.toContain('sk-ant-');
  });

  it('finds the 1.2 workspace memory of the project in the plugin\'s shared folder', async () => {
    const dir = path.join(box.home, '.local', 'share', 'opencode-working-memory', 'workspaces', 'abc123');
    await mkdir(dir, { recursive: true });
    await writeFile(
      path.join(dir, 'workspace-memory.json'),
      JSON.stringify({ version: 1, workspace: { root: box.project, key: 'abc123' }, limits: {}, entries: [{ id: '1', type: 'project', text: 'The monorepo builds with turborepo and pnpm', source: 'explicit', confidence: 1, createdAt: 1, updatedAt: 1 }], updatedAt: 1 }),
    );
    const report = JSON.parse(String((await box.run(['migrate', 'opencode', '.', '--json'])).stdout));
    expect(report.workspace).toMatchObject({ file: path.join(dir, 'workspace-memory.json'), added: 1 });
  });

  it('refuses a folder without OpenCode memory', async () => {
    const result = await box.run(['migrate', 'opencode', '.']);
    expect(result.exitCode).toBe(2);
    expect(String(result.stderr)).toMatch(/no OpenCode memory files/);
  });

  it('keeps secrets out of sections and notes, echoes no bytes of a bad or linked file, and never follows a link out', async () => {
    const oc = path.join(box.project, '.opencode');
    await mkdir(path.join(oc, 'memory-core'), { recursive: true });
    await mkdir(path.join(oc, 'memory-working'), { recursive: true });
    const key = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    await writeFile(path.join(oc, 'memory-core', 'ses_7.json'), JSON.stringify({ sessionID: 'ses_7', blocks: { goal: { value: `Deploy with token ${key} to staging`, charLimit: 1000 } } }));
    const item = (type: string, content: string) => ({ id: content, type, content, source: 'tool', timestamp: 1763884800000, relevanceScore: 0.8, mentions: 2 });
    await writeFile(path.join(oc, 'memory-working', 'ses_7.json'), JSON.stringify({ sessionID: 'ses_7', slots: { decision: [item('decision', `use ${key} for CI`)] }, pool: [] }));
    // A file that is not JSON (its first bytes must not be echoed) and a link to a file outside.
    const outside = path.join(box.root, 'outside-secret.json');
    await writeFile(outside, 'root:SECRET-SHADOW-LINE:19000:0:99999:7:::\n');
    await writeFile(path.join(oc, 'memory-core', 'broken.json'), 'PRIVATE-BYTES-NOT-JSON {');
    await symlink(outside, path.join(oc, 'memory-core', 'linked.json'));
    // A session id that is a token is refused and never shown.
    await writeFile(path.join(oc, 'memory-working', 'tok.json'), JSON.stringify({ sessionID: key, slots: {}, pool: [] }));
    const result = await box.run(['migrate', 'opencode', '.', '--json']);
    const printed = String(result.stdout) + String(result.stderr);
    for (const leak of ['SECRET-SHADOW-LINE', 'PRIVATE-BYTES', key]) expect(printed).not.toContain(leak);
    const report = JSON.parse(String(result.stdout));
    const skipped = Object.fromEntries(report.sessions.filter((s: any) => s.skipped).map((s: any) => [path.basename(s.file), s.skipped]));
    expect(skipped['linked.json']).toMatch(/symbolic link that leads outside/);
    expect(skipped['broken.json']).toMatch(/^not valid JSON/);
    expect(skipped['tok.json']).toMatch(/looks like .*refused \(it is not shown\)/);
    const overview = String((await box.run(['show', 'overview', '--session', 'ses_7'])).stdout);
    expect(overview).toContain('Deploy with token');
    expect(overview).not.toContain(key);
    const memory = String((await box.run(['context', '--session', 'ses_7'])).stdout);
    expect(memory).not.toContain(key);
    expect(String((await box.run(['show', 'scratch', '--session', 'ses_7'])).stdout)).not.toContain(key);
  });
});
