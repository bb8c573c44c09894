// Times `wmem mcp`: from spawning the server to its answer to tools/list (initialize, then
// tools/list, as a client does), against spawning `node -e 0` until it exits, interleaved per
// round; then the round trip of a `note` tool call once the server is started. JSON-RPC lines are
// written by hand here so that no client library's cost lands in the figures.
//   node bench/mcp.mjs [rounds] [notes]
import './node-start.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { emit } from './emit.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin', 'wmem.js');
const rounds = Number(process.argv[2] ?? 20);
const notes = Number(process.argv[3] ?? 200);
const work = mkdtempSync(path.join(os.tmpdir(), 'wmem-bench-'));
const env = { ...process.env, WMEM_HOME: path.join(work, 'home'), NO_COLOR: '1' };
const init = spawnSync(process.execPath, [bin, 'init'], { cwd: work, env, encoding: 'utf8' });
if (init.status !== 0) throw new Error(`wmem init failed: ${init.stderr}`);

/** A started server and a way to send a request and wait for its answer. */
function startServer() {
  const child = spawn(process.execPath, [bin, 'mcp'], { cwd: work, env, stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      waiting.get(message.id)?.(message);
    }
  });
  let id = 0;
  const send = (message) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const mine = ++id;
      waiting.set(mine, (m) => (m.error ? reject(new Error(JSON.stringify(m.error))) : resolve(m.result)));
      send({ id: mine, method, params });
    });
  return { child, send, request, stop: () => new Promise((resolve) => (child.once('exit', resolve), child.stdin.end())) };
}

async function startupToToolsList() {
  const start = process.hrtime.bigint();
  const server = startServer();
  await server.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  server.send({ method: 'notifications/initialized' });
  const { tools } = await server.request('tools/list', {});
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (tools.length !== 10) throw new Error(`tools/list gave ${tools.length} tools`);
  await server.stop();
  return ms;
}

function nodeBaseline() {
  const start = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', '0']);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const startup = [];
const base = [];
await startupToToolsList(); // the first run pays for cold disk caches
for (let r = 0; r < rounds; r++) {
  base.push(nodeBaseline());
  startup.push(await startupToToolsList());
}

const server = startServer();
await server.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
server.send({ method: 'notifications/initialized' });
const roundTrips = [];
for (let i = 0; i < notes + 5; i++) {
  const start = process.hrtime.bigint();
  const result = await server.request('tools/call', { name: 'note', arguments: { text: `bench note ${i}: measured round trip` } });
  if (result.isError) throw new Error(result.content[0].text);
  if (i >= 5) roundTrips.push(Number(process.hrtime.bigint() - start) / 1e6); // the first calls load the use case
}
await server.stop();
rmSync(work, { recursive: true, force: true });

const noteMs = median(roundTrips);
const sorted = [...roundTrips].sort((a, b) => a - b);
console.log(`rounds: ${rounds}, notes: ${notes}, node ${process.version}, ${os.cpus().length} cores`);
console.log(`node -e 0                        median ${median(base).toFixed(1).padStart(6)} ms`);
console.log(`wmem mcp: spawn → tools/list     median ${median(startup).toFixed(1).padStart(6)} ms   ratio ${(median(startup) / median(base)).toFixed(2)}× (target ≤ 1.5×)`);
console.log(`note call round trip (started)   median ${noteMs.toFixed(1).padStart(6)} ms   p90 ${sorted[Math.floor(sorted.length * 0.9)].toFixed(1)} ms (target ≤ 20 ms)`);
emit('mcp', [
  { what: 'wmem mcp: spawn → tools/list answered', ms: median(startup), baseline: 'node -e 0', baselineMs: median(base) },
  { what: 'wmem mcp: note call round trip', ms: noteMs, baseline: '20 ms target', baselineMs: 20 },
]);
