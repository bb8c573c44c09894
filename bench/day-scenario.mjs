// A full day of work in one session (issue 28): task and progress filled to their limits, Known
// Context, Open Questions, Recent Actions and Pointers filled, 40 decisions noted at importance
// 0.9 and consolidated, 28 workspace facts remembered. Prints the memory part's size by block and
// by section, and what the closing line says was left out. Not a timing: a measurement of shape.
//   node bench/day-scenario.mjs [path/to/bin/wmem.js] [--team N]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const teamAt = args.indexOf('--team');
const team = teamAt >= 0 ? Number(args.splice(teamAt, 2)[1]) : 0;
// --old-limits: the section limits an overview made before issue 28 carries (task 1000, progress 2000, context 1500, no others).
const oldAt = args.indexOf('--old-limits');
const oldLimits = oldAt >= 0 && args.splice(oldAt, 1).length > 0;
const bin = path.resolve(args[0] ?? path.join(root, 'bin', 'wmem.js'));
const work = mkdtempSync(path.join(os.tmpdir(), 'wmem-day-'));
const project = path.join(work, 'project');
mkdirSync(project);
const env = { PATH: process.env.PATH, HOME: work, WMEM_HOME: path.join(work, 'home'), NO_COLOR: '1' };
const wmem = (...a) => {
  const r = spawnSync(process.execPath, [bin, ...a], { cwd: project, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`wmem ${a.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
};

const [, dir] = wmem('init').trim().split('\n');
const overviewFile = path.join(dir, 'working-memory', 'overview.md');
if (oldLimits) {
  const old = { task: 1000, progress: 2000, context: 1500 };
  const text = readFileSync(overviewFile, 'utf8').replace(/^(\s*(\w+): \{ title: [^,}]+)(?:, max_chars: \d+)?/gm, (_m, head, id) => (old[id] ? `${head}, max_chars: ${old[id]}` : head));
  writeFileSync(overviewFile, text);
}
const overview = readFileSync(overviewFile, 'utf8');
const limitOf = (id) => Number(new RegExp(`^\\s*${id}:.*max_chars: (\\d+)`, 'm').exec(overview)?.[1] ?? 1500);
/** List items of about 90 characters up to `limit` characters. */
const fill = (topic, limit) => {
  const lines = [];
  for (let i = 0; ; i++) {
    const line = `- ${topic} ${i}: ${'measured and written down so the next session need not find it again'.slice(0, 70)}`;
    if ([...lines, line].join('\n').length > limit) return lines.join('\n');
    lines.push(line);
  }
};
wmem('set', 'task', fill('task step', limitOf('task')));
wmem('set', 'progress', fill('progress item', limitOf('progress')));
wmem('set', 'context', fill('known fact', limitOf('context')));
wmem('set', 'open', fill('open question', 500));
wmem('set', 'recent', fill('recent action', 500));
wmem('set', 'pointers', Array.from({ length: 4 }, (_, i) => `- Past: topic ${i} → search: \`keyword${i} other${i}\``).join('\n'));
for (let i = 0; i < 40; i++) wmem('note', `decision ${i}: chose option ${i} over the alternative because it measured better`, '--importance', '0.9');
wmem('consolidate');
for (let i = 0; i < 28; i++) wmem('remember', '--type', 'project', `workspace fact ${i}: the build of module ${i} needs the flag --fast-${i}`);
if (team) {
  const lines = Array.from({ length: team }, (_, i) => `- [project] team fact ${i}: service ${i} listens on port ${9000 + i} <!-- m-t${String(i).padStart(7, '0')}, 2026-11-01T00:00:00.000Z, 2026-11-01T00:00:00.000Z -->`);
  mkdirSync(path.join(project, '.wmem'), { recursive: true });
  mkdirSync(path.join(project, '.git'));
  writeFileSync(path.join(project, '.wmem', 'memory.md'), `# Team memory\n\n${lines.join('\n')}\n`);
}

const memory = wmem('context', '--part', 'memory').trimEnd();
const blocks = [...memory.matchAll(/<(\w+)>\n([\s\S]*?)\n<\/\1>/g)];
console.log(`wmem: ${path.relative(root, bin) || bin}${team ? `, team file of ${team} entries` : ''}${oldLimits ? ', the limits of an older overview' : ''}`);
console.log(`memory part: ${memory.length} characters`);
for (const [, tag, body] of blocks) {
  console.log(`  <${tag}> ${body.length}`);
  if (tag !== 'working_memory') continue;
  for (const section of body.split(/\n(?=## )/).slice(1)) {
    const [heading, ...rest] = section.split('\n');
    const entries = rest.filter((l) => /^- /.test(l)).length;
    console.log(`    ${heading.padEnd(20)} ${String(section.trimEnd().length).padStart(5)} chars, ${entries} entries${/\[wmem: \d+/.test(section) ? ' (cut)' : ''}`);
  }
}
const facts = (memory.match(/workspace fact \d+/g) ?? []).length;
console.log(`  workspace facts shown: ${facts} of 28`);
console.log(`  closing line: ${/\n(\[wmem: left out[^\n]*)$/.exec(memory)?.[1] ?? '(none)'}`);
rmSync(work, { recursive: true, force: true });
