// The memory part's digest through the real hook (render/memory-resend.ts copyOf): an edit made
// the same at many places is told apart (a linear checksum would not: bench/README.md prompt18),
// and the prompt after a tool call, which changes the session state's block alone, digests that
// block and the part's outline, not the whole part: no WebAssembly instance (a V8 worker woken, a
// timer thread armed and joined at exit), whether the part is kept whole or cut.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execa } from 'execa';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BIN, FIXTURES, sandbox, type Sandbox } from '../helpers/cli.js';

const SID = 'hook-digest-3e9a51c0';
let box: Sandbox;
// Counts the WebAssembly modules the process makes, written at exit to $WMEM_TEST_WASM.
const PROBE = `const M = WebAssembly.Module; let n = 0; WebAssembly.Module = function (bytes) { n++; return new M(bytes); };
process.on('exit', () => require('node:fs').writeFileSync(process.env.WMEM_TEST_WASM, String(n)));`;

beforeAll(async () => {
  box = await sandbox();
  await copyFile(path.join(FIXTURES, 'claude-code-log', 'ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl'), path.join(box.root, 'transcript.jsonl'));
  await writeFile(path.join(box.root, 'probe.cjs'), PROBE);
});
afterAll(async () => box?.cleanup());

/** A hook's answer (its additionalContext) and how many WebAssembly modules it made. */
async function hook(event: string, fields: Record<string, unknown>): Promise<{ context?: string; wasm: number }> {
  const input = JSON.stringify({ session_id: SID, transcript_path: path.join(box.root, 'transcript.jsonl'), cwd: box.project, hook_event_name: event, ...fields });
  const counted = path.join(box.root, 'wasm.txt');
  const env = { PATH: process.env.PATH ?? '', HOME: box.home, NO_COLOR: '1', WMEM_HOME: box.home, WMEM_TEST_WASM: counted, NODE_OPTIONS: `--require ${path.join(box.root, 'probe.cjs')}` };
  const r = await execa('node', [BIN, 'hook', event], { cwd: box.project, input, reject: false, extendEnv: false, timeout: 60_000, env });
  expect({ event, exitCode: r.exitCode, stderr: r.stderr }).toEqual({ event, exitCode: 0, stderr: '' });
  const context = r.stdout ? (JSON.parse(String(r.stdout)).hookSpecificOutput?.additionalContext as string | undefined) : undefined;
  return { context, wasm: Number(await readFile(counted, 'utf8')) };
}

const prompt = (text: string) => hook('UserPromptSubmit', { prompt: text });
const failed = () => hook('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: 'npm run lint' }, tool_use_id: 'l', error: 'Exit code 2\nlint: 3 problems', is_interrupt: false });

async function overviewFile(): Promise<string> {
  return path.join(box.home, (await readdir(box.home, { recursive: true })).find((f) => f.endsWith(path.join(SID, 'working-memory', 'overview.md')))!);
}

it('sends an edit made the same on 21 of 64 lines, and digests no whole part after a tool call, kept whole or cut', async () => {
  expect((await hook('SessionStart', { source: 'startup' })).context).toContain('<working_memory>');
  const file = await overviewFile();
  const todo = Array.from({ length: 64 }, (_, i) => `- TODO step ${i}`);
  await writeFile(file, (await readFile(file, 'utf8')).replace('## Open Questions\n', `## Open Questions\n${todo.join('\n')}\n`));
  const whole = (await prompt('the list'))!.context!;
  expect(whole).toContain('- TODO step 63');
  expect(whole.length).toBeGreaterThan(2048);
  // TODO → DONE on 21 lines (every third): the changed block is sent, and then nothing more.
  const done = todo.map((line, i) => (i % 3 === 0 && i < 63 ? line.replace('TODO', 'DONE') : line));
  await writeFile(file, (await readFile(file, 'utf8')).replace(todo.join('\n'), done.join('\n')));
  const edited = (await prompt('after the edit')).context!;
  expect(edited).toMatch(/^\[wmem: your working memory changed since the copy given earlier in this conversation \(working_memory\)/);
  expect(edited).toContain(done.join('\n'));
  expect((await prompt('unchanged')).context).toMatch(/^<context_meta>\n[^]*<\/context_meta>$/);
  // A tool call, then the prompt: the session state's block alone is sent, and digested alone.
  for (const count of ['', '2×', '3×']) {
    expect((await failed()).context).toBeUndefined();
    const after = await prompt('after a tool call');
    expect(after.context).toMatch(/^\[wmem: your working memory changed since the copy given earlier in this conversation \(session_state\)/);
    expect(after.context).toContain(count ? `lint: 3 problems (#` : 'lint: 3 problems');
    if (count) expect(after.context).toContain(`${count}, from \`npm run lint\``);
    expect(after.wasm).toBe(0);
  }
  // Past its budget: the part is cut. The prompts after the same failure again recut it, the
  // count's line the same length (3× → 4×) or not (9× → 10×).
  const facts = Array.from({ length: 160 }, (_, i) => `- fact ${i}: the importer keeps its own retry loop and its own log`);
  await writeFile(file, (await readFile(file, 'utf8')).replace('## Key Decisions\n', `## Key Decisions\n${facts.join('\n')}\n`));
  const cut = (await prompt('after the facts')).context!;
  expect(cut).toMatch(/\[wmem: left out to fit \d+ characters/);
  for (let n = 4; n <= 10; n++) {
    await failed();
    const after = await prompt('after a tool call');
    expect(after.context).toContain(`${n}×, from \`npm run lint\``);
    expect(after.wasm).toBe(0);
  }
});
