// End-to-end: `wmem consolidate`, deterministic and through an LLM command, against the built CLI.
// Each refusal exits 3 naming the guard and changes nothing; failures exit 1; nothing is lost.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile, appendFile } from 'node:fs/promises';
import path from 'node:path';
import { sandbox, runJson, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
let dir: string;
const wm = (f: string) => path.join(dir, 'working-memory', f);

beforeEach(async () => {
  box = await sandbox();
  dir = (await runJson(box, ['init'])).path;
});
afterEach(async () => {
  await box.cleanup();
});

async function snapshot(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.name === '.lock' || e.name === 'state') continue;
      if (e.isDirectory()) await walk(full);
      else out[path.relative(dir, full)] = await readFile(full, 'utf8');
    }
  };
  await walk(dir);
  return out;
}

async function note(text: string, ...flags: string[]) {
  const r = await box.run(['note', text, ...flags]);
  expect(r.exitCode).toBe(0);
}

/**
 * A fake LLM: a node script that prints `file` once it has read its prompt. With a gate, it first
 * creates `gate.started` and waits for `gate.go` to exist: the test acts while it "thinks".
 */
async function llmPrinting(content: string, gate?: { started: string; go: string }): Promise<string> {
  const file = path.join(box.root, `candidate-${Math.random().toString(36).slice(2)}.md`);
  await writeFile(file, content);
  const script = path.join(box.root, `llm-${Math.random().toString(36).slice(2)}.mjs`);
  const answer = `() => process.stdout.write(readFileSync(${JSON.stringify(file)}, 'utf8'))`;
  const thinking = gate
    ? `{ writeFileSync(${JSON.stringify(gate.started)}, ''); const until = Date.now() + 150_000; const wait = () => (existsSync(${JSON.stringify(gate.go)}) ? (${answer})() : Date.now() < until ? setTimeout(wait, 20) : process.exit(1)); wait(); }`
    : `(${answer})()`;
  await writeFile(script, `import {existsSync, readFileSync, writeFileSync} from 'node:fs'; let s=''; process.stdin.on('data',d=>s+=d).on('end',()=>${thinking});`);
  return `node ${script}`;
}

async function goodCandidate(extra = '- Chose esbuild for the bundle because it is fast'): Promise<string> {
  const overview = await readFile(wm('overview.md'), 'utf8');
  return overview.replace(/^---[\s\S]*?---\n/, '').replace(/(## Key Decisions\n<!--[^\n]*-->)/, `$1\n${extra}`).replace(/(## Current Task\n<!--[^\n]*-->)/, '$1\n- Build the consolidation command end to end');
}

describe('deterministic', () => {
  it('folds notes into sections, archives them, keeps unparsed lines and later notes', async () => {
    await note('Chose esbuild over tsup for the bundle', '--importance', '0.9');
    await note('The dev server listens on port 5173');
    await note('Bundle size budget is 50 kB', '--tag', 'progress');
    await appendFile(wm('scratch.md'), 'this line is not a note\n');
    const r = await box.run(['consolidate']);
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout)).toMatch(/consolidated 3 notes: 1 → decisions, 1 → context, 1 → progress/);
    expect(String(r.stderr)).toMatch(/scratch\.md:\d+ is not a note; kept/);
    const overview = await readFile(wm('overview.md'), 'utf8');
    expect(overview).toMatch(/## Key Decisions\n<!--[^\n]*-->\n- Chose esbuild over tsup for the bundle/);
    expect(overview).toMatch(/## Progress\n<!--[^\n]*-->\n- Bundle size budget is 50 kB\n/);
    const scratch = await readFile(wm('scratch.md'), 'utf8');
    expect(scratch).toContain('this line is not a note');
    expect(scratch).not.toContain('esbuild');
    const archives = (await readdir(wm('archive'))).filter((n) => n.startsWith('scratch-'));
    expect(archives).toHaveLength(1);
    expect(await readFile(wm(`archive/${archives[0]}`), 'utf8')).toMatch(/esbuild[\s\S]*5173[\s\S]*50 kB/);
    const meta = JSON.parse(await readFile(path.join(dir, 'meta.json'), 'utf8'));
    expect(meta.lastConsolidatedAt).toMatch(/^\d{4}-/);
  });

  it('with nothing to do, says so and changes nothing', async () => {
    const before = await snapshot();
    const r = await box.run(['consolidate']);
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout)).toMatch(/nothing to consolidate/);
    expect(await snapshot()).toEqual(before);
  });

  it('--dry-run prints the new overview and changes nothing', async () => {
    await note('Chose esbuild over tsup for the bundle', '--importance', '0.9');
    const before = await snapshot();
    const r = await box.run(['consolidate', '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout)).toMatch(/## Key Decisions\n<!--[^\n]*-->\n- Chose esbuild/);
    expect(await snapshot()).toEqual(before);
  });

  it('is lossless: every note is in the overview, a pointer\'s detail file, or the scratch archive', async () => {
    const texts = Array.from({ length: 60 }, (_, i) => `Fact ${i}: the ${['CORS proxy', 'redis cache', 'webpack config', 'auth token'][i % 4]} detail number ${i} for staging`);
    for (let i = 0; i < texts.length; i += 20) {
      const lines = texts.slice(i, i + 20).map((t, j) => `- [2026-03-12T14:${String(i / 20).padStart(2, '0')}:${String(j).padStart(2, '0')}Z] (importance: 0.5) ${t}`);
      await appendFile(wm('scratch.md'), lines.join('\n') + '\n');
      expect((await box.run(['consolidate'])).exitCode).toBe(0);
    }
    const overview = await readFile(wm('overview.md'), 'utf8');
    const details = await Promise.all((await readdir(wm('detail'))).map((n) => readFile(wm(`detail/${n}`), 'utf8')));
    const archives = await Promise.all((await readdir(wm('archive'))).map((n) => readFile(wm(`archive/${n}`), 'utf8')));
    expect(overview).toMatch(/^- Past: Known Context: .* → search: `[^`]+`$/m);
    expect(overview).toMatch(/^- detail\/\S+-past-context\.md — Past: /m);
    for (const t of texts) {
      expect(overview.includes(t) || details.some((d) => d.includes(t))).toBe(true);
      expect(archives.some((a) => a.includes(t))).toBe(true);
    }
  });

  it('the first consolidation after a MEMORY.md seed appends below the existing text', async () => {
    const hand = Array.from({ length: 40 }, (_, i) => `- Hand-written fact ${i} carried over from MEMORY.md`).join('\n');
    const overview = await readFile(wm('overview.md'), 'utf8');
    await writeFile(wm('overview.md'), overview.replace(/(## Known Context\n<!--[^\n]*-->)/, `$1\n${hand}`));
    const meta = JSON.parse(await readFile(path.join(dir, 'meta.json'), 'utf8'));
    await writeFile(path.join(dir, 'meta.json'), JSON.stringify({ ...meta, seededFrom: '/x/MEMORY.md' }));
    await note('Fresh note after the seed about the CI runners');
    const r = await runJson(box, ['consolidate']);
    expect(r.appendedBelowSeed).toBe(true);
    const after = await readFile(wm('overview.md'), 'utf8');
    expect(after).toContain(hand);
    const meta2 = JSON.parse(await readFile(path.join(dir, 'meta.json'), 'utf8'));
    expect(meta2.seedConsolidated).toBe(true);
  });
});

describe('--llm', () => {
  it('accepts a sound synthesis, keeps the previous overview, and empties scratch of the consumed notes', async () => {
    await note('Chose esbuild over tsup for the bundle', '--importance', '0.9');
    const llm = await llmPrinting(await goodCandidate());
    const r = await box.run(['consolidate', '--llm', llm]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout)).toMatch(/LLM synthesis accepted/);
    const overview = await readFile(wm('overview.md'), 'utf8');
    expect(overview).toMatch(/^---\nwmem: overview/); // front matter restored
    expect(overview).toContain('- Build the consolidation command end to end');
    expect(await readFile(wm('scratch.md'), 'utf8')).not.toContain('esbuild');
    const archive = await readdir(wm('archive'));
    expect(archive.some((n) => n.startsWith('overview-'))).toBe(true);
    expect(archive.some((n) => n.startsWith('scratch-'))).toBe(true);
  });

  it('sends the prompt with the overview and the notes on stdin', async () => {
    await note('A note the prompt must carry to the model');
    const script = path.join(box.root, 'echo-llm.mjs');
    const dump = path.join(box.root, 'prompt.txt');
    await writeFile(script, `import {writeFileSync} from 'node:fs'; let s=''; process.stdin.on('data',d=>s+=d).on('end',()=>{writeFileSync(${JSON.stringify(dump)}, s); process.exit(1)});`);
    await box.run(['consolidate', '--llm', `node ${script}`]);
    const prompt = await readFile(dump, 'utf8');
    expect(prompt).toMatch(/<current_overview>\n---\nwmem: overview/);
    expect(prompt).toMatch(/<scratch_notes>\n- \[.*\] \(importance: 0\.5\) A note the prompt must carry/);
  });

  const guards: [string, (c: string) => string | Promise<string>][] = [
    ['required-sections', (c) => c.replace(/## Key Decisions\n/, '')],
    ['pointers', (c) => c.replace(/(## Pointers\n<!--[^\n]*-->)/, `$1\n${Array.from({ length: 21 }, (_, i) => `- Past: topic ${i} → search: \`t${i}\``).join('\n')}`)],
    ['substance', (c) => c.replace(/\n- [^\n]*/g, '')],
    ['budget', (c) => c.replace(/(## Progress\n<!--[^\n]*-->)/, `$1\n${'progress '.repeat(300)}`)],
  ];
  it.each(guards)('the %s guard refuses with exit 3 and changes nothing', async (guard, mutate) => {
    await note('Chose esbuild over tsup for the bundle', '--importance', '0.9');
    const llm = await llmPrinting(await mutate(await goodCandidate()));
    const before = await snapshot();
    const r = await box.run(['consolidate', '--llm', llm]);
    expect(r.exitCode).toBe(3);
    expect(String(r.stderr)).toContain(`refused by the ${guard} guard`);
    expect(String(r.stderr)).not.toMatch(/^\s+at /m);
    expect(r.stdout).toBe('');
    expect(await snapshot()).toEqual(before);
  });

  it('the shrink guard refuses a synthesis under half of a long previous overview', async () => {
    // Decisions and facts past their sections' limits (1200, 900): a previous overview over 2000 characters.
    for (let i = 0; i < 30; i++) await appendFile(wm('scratch.md'), `- [2026-03-12T14:30:${String(i).padStart(2, '0')}Z] (importance: 0.9) Decision ${i}: keep module ${i} small because reviews go faster\n`);
    for (let i = 0; i < 20; i++) await appendFile(wm('scratch.md'), `- [2026-03-12T14:31:${String(i).padStart(2, '0')}Z] (importance: 0.5) Fact ${i}: module ${i} builds with the shared esbuild config\n`);
    expect((await box.run(['consolidate'])).exitCode).toBe(0);
    await note('One more decision about the release train cadence', '--importance', '0.9');
    const small = (await readFile(wm('overview.md'), 'utf8')).replace(/^---[\s\S]*?---\n/, '').replace(/^- (?:Decision (?!29:)\d+|Fact \d+).*\n/gm, '');
    const llm = await llmPrinting(small);
    const before = await snapshot();
    const r = await box.run(['consolidate', '--llm', llm]);
    expect(r.exitCode).toBe(3);
    expect(String(r.stderr)).toContain('refused by the shrink guard');
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['fails', 'node -e "process.stderr.write(\'model overloaded\\n\'); process.exit(7)"', 1, /the LLM command failed \(exit 7\): model overloaded/],
    ['prints garbage', 'node -e "process.stdout.write(\'Sure! I cannot help with that.\')"', 3, /refused by the (unparseable|required-sections) guard/],
    ['prints nothing', 'node -e ""', 3, /refused by the/],
    ['does not exist', 'no-such-llm-command-here', 1, /the LLM command failed/],
  ])('an LLM command that %s changes nothing', async (_what, cmd, code, message) => {
    await note('Chose esbuild over tsup for the bundle', '--importance', '0.9');
    const before = await snapshot();
    const r = await box.run(['consolidate', '--llm', cmd as string]);
    expect(r.exitCode).toBe(code);
    expect(String(r.stderr)).toMatch(message as RegExp);
    expect(await snapshot()).toEqual(before);
  });

  it('an LLM command that times out is killed and changes nothing', async () => {
    await note('Chose esbuild over tsup for the bundle', '--importance', '0.9');
    const before = await snapshot();
    // The command's shell becomes the sleep (exec): its pid is the process the timeout must end.
    // (Not timed: a run that waited for the sleep would outlast the run's 20 s limit and fail.)
    const pidFile = path.join(box.root, 'llm.pid');
    const r = await box.run(['consolidate', '--llm', `echo $$ > ${pidFile}; exec sleep 30`, '--timeout', '1'], { timeout: 20_000 });
    expect(r.exitCode).toBe(1);
    expect(String(r.stderr)).toMatch(/timed out after 1 s/);
    const pid = Number(await readFile(pidFile, 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    expect(await snapshot()).toEqual(before);
  });

  it('notes appended while a slow LLM runs stay in scratch.md', async () => {
    await note('Chose esbuild over tsup for the bundle', '--importance', '0.9');
    // The note is written once the LLM has its prompt (the notes read), and before it answers:
    // not after a fixed wait, which a loaded machine's slow start of wmem outlasted.
    const gate = { started: path.join(box.root, 'llm-started'), go: path.join(box.root, 'llm-go') };
    const llm = await llmPrinting(await goodCandidate(), gate);
    const running = box.run(['consolidate', '--llm', llm], { timeout: 120_000 });
    await expect.poll(() => existsSync(gate.started), { timeout: 120_000, interval: 20 }).toBe(true);
    await note('Written while the LLM was thinking');
    await writeFile(gate.go, '');
    const r = await running;
    expect(r.exitCode).toBe(0);
    const scratch = await readFile(wm('scratch.md'), 'utf8');
    expect(scratch).toContain('Written while the LLM was thinking');
    expect(scratch).not.toContain('Chose esbuild');
    expect(String(r.stdout)).toMatch(/1 note added meanwhile stays? in scratch\.md/);
  });
});
