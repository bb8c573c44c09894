// A Claude Code-shaped history for the benches (compact.mjs, search-after-compact.mjs): turns of
// user prompt, assistant tool call, tool result, answer; about 600 bytes a message.
import { createHash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';

// Ids shaped like Claude Code's (msg_01 / toolu_01 and 22 random letters and digits).
const idOf = (prefix, seed) => prefix + '01' + createHash('sha256').update(`${prefix}${seed}`).digest('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, 22);

// A Claude Code-shaped history: turns of user prompt, assistant tool call, tool result, answer.
// `oneTurn`: a single prompt, then steps only (an agent working on one request): each later
// prompt is an assistant progress note instead.
export function generate(file, count, { oneTurn = false } = {}) {
  const fd = openSync(file, 'w');
  const filler = (n, seed) => Array.from({ length: n }, (_, i) => `line ${seed}-${i}: src/module${(seed + i) % 97}/file${i}.ts ok`).join('\n');
  let batch = [];
  for (let i = 0; i < count; i++) {
    const turn = Math.floor(i / 4);
    const uuid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const common = { parentUuid: i ? `00000000-0000-4000-8000-${String(i - 1).padStart(12, '0')}` : null, isSidechain: false, uuid, timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(), sessionId: 'bench', version: '2.1.114', cwd: '/work/project' };
    let line;
    switch (i % 4) {
      case 0:
        if (oneTurn && i > 0) {
          line = { ...common, type: 'assistant', message: { id: idOf('msg_', `${turn}a`), role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: `Next: src/module${turn % 97}, where a test fails; I will keep the public API stable.` }], usage: { input_tokens: 1250, cache_read_input_tokens: 40500, output_tokens: 40 } } };
          break;
        }
        line = { ...common, type: 'user', message: { role: 'user', content: `Turn ${turn}: please look at src/module${turn % 97} and fix the failing test; keep the public API stable and explain the change briefly.` } };
        break;
      case 1:
        line = { ...common, type: 'assistant', message: { id: idOf('msg_', turn), role: 'assistant', model: 'claude-x', content: [{ type: 'tool_use', id: idOf('toolu_', turn), name: 'Bash', input: { command: `npm test -- src/module${turn % 97}`, description: 'run the tests' } }], usage: { input_tokens: 1200, cache_read_input_tokens: 40000, output_tokens: 80 } } };
        break;
      case 2:
        line = { ...common, type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: idOf('toolu_', turn), content: filler(9, turn) }] }, toolUseResult: { stdout: 'see content', stderr: '', interrupted: false } };
        break;
      default:
        line = { ...common, type: 'assistant', message: { id: idOf('msg_', `${turn}b`), role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: `The test in src/module${turn % 97} failed because of an off-by-one in the loop bound. I changed it and reran the suite; everything passes now.` }], usage: { input_tokens: 1300, cache_read_input_tokens: 41000, output_tokens: 60 } } };
    }
    batch.push(JSON.stringify(line));
    if (batch.length === 1000) {
      writeSync(fd, batch.join('\n') + '\n');
      batch = [];
    }
  }
  if (batch.length) writeSync(fd, batch.join('\n') + '\n');
  closeSync(fd);
}

