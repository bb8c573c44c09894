// `wmem report` on a session whose history holds N assistant messages with usage (100,000 by
// default, about 30 MB), beside bare `node -e 0`; prints the page's size too. The issue's
// target: 100,000 messages in at most 2 s, the page at most 2 MB.
//
//   node bench/report.mjs [rounds=5] [messages=100000]
import './node-start.mjs';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './emit.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'wmem.js');
const WORK = path.join(ROOT, 'bench', '.work', 'report');
const rounds = Number(process.argv[2] ?? 5);
const count = Number(process.argv[3] ?? 100_000);

rmSync(WORK, { recursive: true, force: true });
const project = path.join(WORK, 'project');
mkdirSync(project, { recursive: true });
const env = { ...process.env, WMEM_HOME: path.join(WORK, 'home'), NO_COLOR: '1' };
const session = JSON.parse(execFileSync('node', [BIN, 'init', '--session', 'bench', '--json'], { cwd: project, env, encoding: 'utf8' })).path;
const lines = [];
for (let i = 0; i < count; i++) {
  const time = new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString();
  lines.push(JSON.stringify({ type: 'user', timestamp: time, message: { role: 'user', content: `step ${i}` } }));
  lines.push(JSON.stringify({ type: 'assistant', timestamp: time, message: { id: `msg_${i}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: `done ${i}` }], usage: { input_tokens: 12, cache_creation_input_tokens: 400, cache_read_input_tokens: 1000 + ((i * 7919) % 180_000) } } }));
}
writeFileSync(path.join(session, 'messages.jsonl'), lines.join('\n') + '\n');

const time = (fn) => {
  const t = process.hrtime.bigint();
  const r = fn();
  return [Number(process.hrtime.bigint() - t) / 1e6, r];
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runs = { wmem: [], node: [] };
let bytes = 0;
for (let r = 0; r < rounds; r++) {
  const [ms, out] = time(() => spawnSync('node', [BIN, 'report', '--json'], { cwd: project, env, encoding: 'utf8' }));
  if (out.status !== 0) throw new Error(out.stderr);
  runs.wmem.push(ms);
  bytes = statSync(JSON.parse(out.stdout).file).size;
  runs.node.push(time(() => execFileSync('node', ['-e', '0']))[0]);
}
console.log(JSON.stringify({ messages: count, historyMb: Math.round(statSync(path.join(session, 'messages.jsonl')).size / 1e5) / 10, pageKb: Math.round(bytes / 1024), ms: { wmemReportMedian: Math.round(median(runs.wmem)), nodeStartupMedian: Math.round(median(runs.node)) } }, null, 2));
emit('report', [{ what: `wmem report, ${count.toLocaleString('en-US')} messages`, ms: median(runs.wmem), baseline: 'node -e 0', baselineMs: median(runs.node) }]);
