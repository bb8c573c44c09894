// The rounds and the table of the hook benches (hooks.mjs, hooks-codex.mjs, hooks-gemini.mjs,
// hooks-opencode.mjs, hooks-agents.mjs): each case of each world (this build's wmem, and another build's when one is
// given) timed round by round beside bare `node -e 0`, interleaved so machine noise hits all
// alike; medians, p90, the ratio to node, the ratio of this build to the baseline's, CPU time
// beside wall time, and the load average.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { emit } from './emit.mjs';
import { cpuNote, cpuUnit, lastCpuMs, spawnTimed } from './cpu.mjs';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pick = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

/**
 * Runs `rounds` rounds over `worlds` ([{ tag: 'this' | 'baseline', grow(r), cases: {name: fn(r) | [untimed(r), fn(r)]} }])
 * and prints the table after `notes`; emits this build's rows as `bench`, each named `${prefix}${case}`.
 */
export function hookRounds({ worlds, rounds, notes, bench, prefix, baselineBin }) {
  const cases = { 'node -e 0': () => spawnTimed(process.execPath, ['-e', '0']) };
  for (const name of Object.keys(worlds[0].cases)) for (const w of worlds) cases[w.tag === 'this' ? name : `${name} (baseline)`] = w.cases[name];
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  const cpu = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let r = 0; r < rounds; r++) {
    for (const w of worlds) w.grow(r);
    for (const [name, c] of Object.entries(cases)) {
      // A case may do an untimed step first (the agent's own edit before the hook it fires).
      const [untimed, fn] = Array.isArray(c) ? c : [undefined, c];
      untimed?.(r);
      const start = process.hrtime.bigint();
      fn(r);
      times[name].push(Number(process.hrtime.bigint() - start) / 1e6);
      if (lastCpuMs !== undefined) cpu[name].push(lastCpuMs);
    }
  }
  const base = median(times['node -e 0']);
  const baseCpu = cpu['node -e 0'].length ? median(cpu['node -e 0']) : undefined;
  const cpuOf = (name) => (baseCpu && cpu[name].length ? `   cpu ${median(cpu[name]).toFixed(0).padStart(4)} ${cpuUnit} ${(median(cpu[name]) / baseCpu).toFixed(2)}×` : '');
  for (const note of notes()) console.log(note);
  if (baselineBin) console.log(`baseline: ${baselineBin}; "vs baseline" = this build's median / the baseline's, same rounds`);
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${cpuNote}`);
  const width = Math.max(...Object.keys(times).map((k) => k.length)) + 1;
  for (const [name, xs] of Object.entries(times)) {
    const other = times[`${name} (baseline)`];
    const versus = other ? `   vs baseline ${(median(xs) / median(other)).toFixed(2)}×` : '';
    console.log(`${name.padEnd(width)} median ${median(xs).toFixed(1).padStart(6)} ms   p90 ${pick(xs, 0.9).toFixed(1).padStart(6)} ms   ratio ${(median(xs) / base).toFixed(2)}×${versus}${cpuOf(name)}`);
  }
  emit(bench, Object.entries(times).filter(([name]) => name !== 'node -e 0' && !name.endsWith('(baseline)')).map(([what, xs]) => ({ what: `${prefix}${what}`, ms: median(xs), baseline: 'node -e 0', baselineMs: base })));
}

/**
 * A session's folder `work/tag` served by the wmem at `bin` as `agent`: its project, home and
 * environment (`env(project)` added; `hookEnv` added for the hooks alone), and how to run a hook
 * (timed) and a command of it there.
 */
export function benchSession({ work, tag, bin, agent, sid, env: extra = () => ({}), hookEnv = {} }) {
  const dir = path.join(work, tag);
  const project = path.join(dir, 'project');
  const home = path.join(dir, 'home');
  mkdirSync(project, { recursive: true });
  const env = { ...process.env, WMEM_HOME: home, NO_COLOR: '1', ...extra(project) };
  const hook = (event, input) => {
    const r = spawnTimed(process.execPath, [bin, 'hook', '--agent', agent, event], { cwd: project, env: { ...env, ...hookEnv }, input, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`hook ${event} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  const wmem = (...args) => {
    const r = spawnSync(process.execPath, [bin, ...args, '--session', sid], { cwd: project, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`wmem ${args.join(' ')} failed: ${r.stderr}`);
  };
  return { dir, project, home, env, hook, wmem };
}

/** The memory of a normal session, as bench/hooks.mjs's: task, progress, decisions, context, 100 scratch notes. */
export function fillMemory({ wmem, home, project }, sid) {
  const filler = (topic, n) => Array.from({ length: n }, (_, i) => `- ${topic} item ${i}: decided after measuring, see detail/notes-${i}.md`).join('\n');
  wmem('set', 'task', 'Ship the compaction path: stream messages.jsonl, archive first, then rewrite; restore must round-trip.');
  wmem('set', 'progress', filler('progress', 15));
  wmem('set', 'decisions', filler('decision', 12));
  wmem('set', 'context', filler('context', 10));
  const notes = Array.from({ length: 100 }, (_, i) => `- [2026-11-23T08:00:00Z] (importance: 0.${i % 10}) note ${i}: the build uses esbuild and the tests use vitest #context`).join('\n');
  appendFileSync(path.join(home, 'sessions', `--${project.slice(1).replace(/[/\\:]/g, '-')}--`, sid, 'working-memory', 'scratch.md'), notes + '\n');
}
