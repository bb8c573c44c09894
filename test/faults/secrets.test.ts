// Every door a secret could come through, with each secret of the table: notes, tags, section
// edits, workspace memory (each also through the MCP server), the hooks (prompt, tool input and
// output, a failure), `track`, the compaction summary of a history that holds it, `migrate
// opencode`, and a session id. After all of them, no file wmem injects or keeps as state
// (overview.md, scratch.md, meta.json, state/, workspace memory), no `wmem context` and no
// command output holds any part of it.
// The verbatim record (archive/, detail/, cache/, the history itself) is allowed to: it is the
// lossless copy, 0600, never injected.
import { afterAll, expect, it } from 'vitest';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, type Sandbox } from '../helpers/cli.js';
import { SECRETS, listTree, withSession } from './helpers.js';

const SID = '5e1f0a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
const VERBATIM = /(^|\/)(archive|detail|cache|tool-outputs)\/|messages\.jsonl$|\.lock/;
const tally = { secrets: 0, doors: 0, leaks: [] as string[] };

afterAll(() => {
  console.log(`secrets: ${tally.secrets} tried through ${tally.doors} doors each; leaked ${tally.leaks.length}${tally.leaks.length ? `: ${tally.leaks.join('; ')}` : ''}`);
});

/** Runs every door with `value`; returns everything wmem printed. */
async function throughEveryDoor(box: Sandbox, value: string): Promise<{ printed: string[]; doors: number }> {
  const printed: string[] = [];
  const run = async (args: string[], input?: string) => {
    const r = await box.run(args, { input });
    printed.push(`${args[0]} ${args[0] === "hook" ? args[1] : ""}: ${r.stdout}\n${r.stderr}`);
    return r;
  };
  const flat = value.replace(/\n/g, ' ');
  await run(['note', `the deploy uses ${value}`]);
  await run(['note', 'a plain note', '--tag', flat]);
  await run(['set', 'context', `Staging credential: ${value}`]);
  await run(['append', 'progress', `- rotated ${value}`]);
  await run(['remember', '--type', 'reference', `The staging deploy authenticates with ${value} from the vault`]);
  // The same doors through the MCP server, as an agent's client calls them.
  printed.push(...(await throughMcp(box, value, flat)));
  // A Claude Code session: its transcript and hooks.
  const transcript = path.join(box.root, 'claude', `${SID}.jsonl`);
  await mkdir(path.dirname(transcript), { recursive: true });
  await writeFile(transcript, JSON.stringify({ type: 'user', uuid: 'u1', message: { role: 'user', content: `use ${value}` } }) + '\n');
  const hook = (event: string, extra: Record<string, unknown>) => run(['hook', event], JSON.stringify({ session_id: SID, transcript_path: transcript, cwd: box.project, hook_event_name: event, ...extra }));
  await hook('SessionStart', { source: 'startup' });
  await hook('UserPromptSubmit', { prompt: `deploy with ${value}` });
  await hook('PostToolUse', { tool_name: 'Bash', tool_input: { command: `curl -H "Authorization: Bearer ${flat}" https://api.example.test` }, tool_response: { stdout: `token ok: ${value}`, stderr: '' } });
  await hook('PostToolUseFailure', { tool_name: 'Bash', tool_input: { command: `deploy --key '${flat}'` }, error: `Exit code 1\nauth failed for ${value}` });
  await hook('PostToolUse', { tool_name: 'Edit', tool_input: { file_path: path.join(box.project, 'config.env'), old_string: 'x', new_string: value }, tool_response: {} });
  await run(['track'], JSON.stringify({ tool_name: 'Bash', tool_input: { command: `export TOKEN=${flat}` }, tool_response: { stdout: value } }));
  // A history holding it, compacted with the built-in summary.
  const messages = JSON.parse(String((await box.run(['show', 'messages', '--json'])).stdout)).file as string;
  const turns = Array.from({ length: 6 }, (_, t) => [
    JSON.stringify({ type: 'user', message: { role: 'user', content: `turn ${t}: set the key to ${value}` } }),
    JSON.stringify({ type: 'assistant', message: { id: `m${t}`, role: 'assistant', content: [{ type: 'text', text: `Done, the key ${value} is in place for turn ${t}.` }] } }),
  ]).flat();
  await writeFile(messages, turns.join('\n') + '\n');
  await run(['compact', '--keep-recent', '1', '--strategy', 'summarize']);
  // An OpenCode memory to migrate.
  const core = path.join(box.project, '.opencode', 'memory-core');
  await mkdir(core, { recursive: true });
  await writeFile(path.join(core, 'ses_mig.json'), JSON.stringify({ sessionID: 'ses_mig', blocks: { goal: { value: `Ship with ${value}` }, context: { value: `key: ${value}` } } }));
  await run(['migrate', 'opencode', '.']);
  // A session id that is the secret.
  await run(['init', '--session', flat]);
  for (const session of [undefined, SID, 'ses_mig']) await run(['context', ...(session ? ['--session', session] : [])]);
  await run(['memories']);
  await run(['status']);
  return { printed, doors: 17 };
}

/** note, a tag, set_section, append_section and remember through `wmem mcp`; returns what the tools answered. */
async function throughMcp(box: Sandbox, value: string, flat: string): Promise<string[]> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: box.project, env: { PATH: process.env.PATH ?? '', HOME: box.home, WMEM_HOME: box.home }, stderr: 'ignore' });
  const client = new Client({ name: 'secrets', version: '1' });
  await client.connect(transport);
  const calls: [string, Record<string, unknown>][] = [
    ['note', { text: `the deploy uses ${value}` }],
    ['note', { text: 'a plain note', tags: [flat] }],
    ['set_section', { section: 'context', text: `Staging credential: ${value}` }],
    ['append_section', { section: 'progress', text: `- rotated ${value}` }],
    ['remember', { type: 'reference', text: `The staging deploy authenticates with ${value} from the vault` }],
  ];
  const out: string[] = [];
  for (const [name, args] of calls) {
    const result = (await client.callTool({ name, arguments: args })) as { content: { text?: string }[]; structuredContent?: unknown };
    out.push(`mcp ${name}: ${result.content.map((c) => c.text ?? '').join('\n')}\n${JSON.stringify(result.structuredContent ?? null)}`);
  }
  await client.close();
  return out;
}

for (const secret of SECRETS) {
  it(`a ${secret.kind} secret reaches no injected text, state or output`, async () => {
    const { box } = await withSession();
    try {
      const { printed, doors } = await throughEveryDoor(box, secret.value);
      tally.secrets++;
      tally.doors = doors;
      const leaks: string[] = [];
      printed.forEach((out) => out.includes(secret.mark) && leaks.push(`printed by ${out.split(':')[0]}`));
      for (const rel of await listTree(box.home)) {
        if (VERBATIM.test(rel)) continue;
        if ((await readFile(path.join(box.home, rel), 'utf8')).includes(secret.mark)) leaks.push(rel);
      }
      tally.leaks.push(...leaks.map((l) => `${secret.kind} in ${l}`));
      // The doors were open: what came through them (redacted) is there.
      const all = printed.join('\n');
      expect(all).toContain('config.env'); // the edited file, in the hot state of the hooked session
      expect(all).toContain('Ship with'); // the migrated goal, in that session's overview
      expect((await listTree(box.home)).some((rel) => /archive\/messages-/.test(rel))).toBe(true); // compacted
      expect(leaks).toEqual([]);
    } finally {
      await box.cleanup();
    }
  });
}
