// End-to-end (issue 28): a full day of work in one session fits the memory part with every
// section and the workspace facts in it, through the built wmem: the task and progress at their
// limits, Known Context, Open Questions, Recent Actions and Pointers filled, 40 decisions at
// importance 0.9 consolidated, 28 facts remembered; then the same with a 500-entry team file,
// with the larger limits an overview made before this change carries, and in the next session
// with the handoff of the first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runJson, sandbox, type Sandbox } from '../helpers/cli.js';

let box: Sandbox;
let overviewFile: string;
beforeAll(async () => {
  box = await sandbox();
  overviewFile = path.join((await runJson(box, ['init'])).path, 'working-memory', 'overview.md');
});
afterAll(async () => {
  await box.cleanup();
});

async function wmem(...args: string[]): Promise<string> {
  const result = await box.run(args, { timeout: 60_000 });
  if (result.exitCode !== 0) throw new Error(`wmem ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}`);
  return String(result.stdout);
}

/** List items of about 90 characters, as many as fit `limit`. */
function fill(topic: string, limit: number): string {
  const lines: string[] = [];
  for (let i = 0; ; i++) {
    const line = `- ${topic} ${i}: measured and written down so the next session need not find it again`;
    if ([...lines, line].join('\n').length > limit) return lines.join('\n');
    lines.push(line);
  }
}

async function limitOf(id: string): Promise<number> {
  return Number(new RegExp(`^\\s*${id}:.*max_chars: (\\d+)`, 'm').exec(await readFile(overviewFile, 'utf8'))?.[1]);
}

async function fillDay(): Promise<void> {
  for (const [id, topic] of [['task', 'task step'], ['progress', 'progress item'], ['context', 'known fact'], ['open', 'open question']] as const) {
    await wmem('set', id, fill(topic, await limitOf(id)));
  }
  await wmem('set', 'recent', fill('recent action', 500));
  await wmem('set', 'pointers', Array.from({ length: 4 }, (_, i) => `- Past: topic ${i} → search: \`keyword${i}\``).join('\n'));
}

/** The memory part, and the sections it shows with how many of their entries. */
async function memoryPart(): Promise<{ raw: string; text: string; entries: Record<string, number> }> {
  const raw = await wmem('context', '--part', 'memory');
  const text = raw.trimEnd();
  const working = /<working_memory>\n([\s\S]*?)\n<\/working_memory>/.exec(text)?.[1] ?? '';
  const entries: Record<string, number> = {};
  for (const section of working.split(/\n(?=## )/).slice(1)) {
    const [heading, ...rest] = section.split('\n');
    entries[heading.slice(3)] = rest.filter((l) => l.startsWith('- ')).length;
  }
  return { raw, text, entries };
}

function expectEverySection(entries: Record<string, number>): void {
  for (const title of ['Current Task', 'Progress', 'Key Decisions', 'Known Context', 'Open Questions', 'Recent Actions', 'Pointers']) {
    expect(entries[title], title).toBeGreaterThan(0);
  }
}

describe('a full day of work', () => {
  it('shows every section and the workspace facts within the budget', async () => {
    await fillDay();
    for (let i = 0; i < 40; i++) await wmem('note', `decision ${i}: chose option ${i} over the alternative because it measured better`, '--importance', '0.9');
    await wmem('consolidate');
    for (let i = 0; i < 28; i++) await wmem('remember', '--type', 'project', `workspace fact ${i}: the build of module ${i} needs the flag --fast-${i}`);

    const { raw, text, entries } = await memoryPart();
    expect(text.length).toBeLessThanOrEqual(8000);
    expectEverySection(entries);
    // Consolidation kept Key Decisions within its limit: the older ones are in detail/ with a pointer.
    expect(text).toContain('decision 39');
    expect(text).toMatch(/- Past: Key Decisions/);
    expect((text.match(/workspace fact \d+/g) ?? []).length).toBe(28);
    // Filled sections carry no instruction comment; the same files give the same bytes.
    expect(text).not.toMatch(/## Current Task\n<!--/);
    expect(await wmem('context', '--part', 'memory')).toBe(raw);
  }, 600_000);

  it('keeps them with a 500-entry team file, the team entries cut with a pointer to the rest', async () => {
    await mkdir(path.join(box.project, '.git'), { recursive: true });
    await mkdir(path.join(box.project, '.wmem'), { recursive: true });
    const team = Array.from({ length: 500 }, (_, i) => `- [project] team fact ${i}: service ${i} listens on port ${9000 + i} <!-- m-t${String(i).padStart(7, '0')}, 2026-11-01T00:00:00.000Z, 2026-11-01T00:00:00.000Z -->`);
    await writeFile(path.join(box.project, '.wmem', 'memory.md'), `# Team memory\n\n${team.join('\n')}\n`);

    const { text, entries } = await memoryPart();
    expect(text.length).toBeLessThanOrEqual(8000);
    expectEverySection(entries);
    // What the user asked to remember comes before the team's entries; the block counts the rest
    // and says where it is (the block holds 28 entries at most).
    expect((text.match(/workspace fact \d+/g) ?? []).length).toBe(28);
    expect(text).toContain('500 more not shown: `wmem memories --team`, `wmem search`');
  }, 600_000);

  it('keeps a share of every section of an overview made with the older, larger limits', async () => {
    const older = (await readFile(overviewFile, 'utf8'))
      .replace(/max_chars: 500, required/, 'max_chars: 1000, required')
      .replace(/max_chars: 1000, required/g, (m, offset, all) => (all.indexOf('progress:') < offset ? 'max_chars: 2000, required' : m))
      .replace(/(decisions: \{ title: [^,]+), max_chars: \d+/, '$1')
      .replace(/max_chars: 900/, 'max_chars: 1500');
    await writeFile(overviewFile, older);
    expect(await limitOf('progress')).toBe(2000);
    await fillDay();
    const { text, entries } = await memoryPart();
    expect(text.length).toBeLessThanOrEqual(8000);
    expectEverySection(entries);
    expect(text).toMatch(/workspace fact \d+/);
  }, 600_000);

  it('keeps them in the next session, with the handoff of this one and the team file', async () => {
    overviewFile = path.join((await runJson(box, ['init', '--new'])).path, 'working-memory', 'overview.md');
    await fillDay();
    await wmem('set', 'decisions', fill('decision of the new session', 1200));
    const { raw, text, entries } = await memoryPart();
    expect(text.length).toBeLessThanOrEqual(8000);
    expectEverySection(entries);
    const handoff = /<previous_session>\n([\s\S]*?)\n<\/previous_session>/.exec(text)?.[1] ?? '';
    expect(handoff).toMatch(/^The previous session of this project, [^\n]+|^Session [^\n]+ still running/);
    expect(handoff).toContain('task step 0');
    // Its last line, where the rest of that session is, survives any cut.
    expect(handoff).toMatch(/\nThe rest: \/[^\n]*overview\.md, and wmem search --session \S+ WORDS\.$/);
    expect((text.match(/workspace fact \d+/g) ?? []).length).toBeGreaterThan(0);
    expect(text).toMatch(/## Open Questions\n- open question 0/);
    expect(text).toMatch(/## Known Context\n- known fact 0/);
    expect(await wmem('context', '--part', 'memory')).toBe(raw);
  }, 600_000);
});
