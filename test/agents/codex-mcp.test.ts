// The real Codex CLI (pinned, installed by the suite's setup) reaching wmem through MCP: the
// built `wmem install codex --mcp` writes [mcp_servers.wmem] into Codex's own config.toml, Codex
// starts `wmem mcp` from it (in the project folder, so the project's current session is served),
// the loopback mock model calls the note tool Codex offers it, and the note is in the session's
// scratch.md afterwards.
import { expect, inject, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { parse as parseToml } from 'smol-toml';
import { CodexWorld } from './helpers/codex-world.js';
import { inputItems, itemText, toolNames } from './helpers/responses-mock.js';

const codexBin = inject('codexBin');

it('Codex starts wmem mcp from its config.toml and the model notes through it', async () => {
  const world = await CodexWorld.create(codexBin);
  try {
    const session = await world.wmemJson<{ path: string }>(['init']);
    const installed = await world.wmem(['install', 'codex', '--mcp']);
    expect(installed.exitCode, String(installed.stderr)).toBe(0);
    const config = parseToml(await readFile(world.configPath, 'utf8')) as any;
    expect(config.mcp_servers.wmem.args).toEqual([expect.stringMatching(/bin\/wmem\.js$/), 'mcp', '--home', world.wmemHome]);
    expect(config.model_providers.mock.wire_api).toBe('responses'); // the rest of the file is still there

    // What Codex offers the model: wmem's ten tools as the namespace mcp__wmem, and the model
    // calls one by its name in that namespace (a plain `mcp__wmem__note` is an unsupported call).
    const look = await world.codex('Which tools can you use?');
    expect(look.exitCode, look.stderr.slice(-2000)).toBe(0);
    const offered = toolNames(look.requests[0]!).filter((name) => name.startsWith('mcp__wmem/'));
    expect(offered.sort()).toEqual(['append_section', 'compact', 'consolidate', 'forget', 'note', 'remember', 'search', 'set_section', 'show', 'status'].map((t) => `mcp__wmem/${t}`));

    const text = 'decided: the importer ships behind a flag until the 10 GB run passes';
    const run = await world.codex(`Note this. [[call: mcp__wmem/note ${JSON.stringify({ text, importance: 0.9, tags: ['decisions'] })}]]`);
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    const scratch = await readFile(`${session.path}/working-memory/scratch.md`, 'utf8');
    expect(scratch).toMatch(new RegExp(`\\(importance: 0\\.9\\) ${text} #decisions\\n`));
    // The tool's answer went back to the model: the note line as wmem wrote it (Codex passes the
    // structured content on).
    const outputs = run.requests.flatMap(inputItems).filter((item) => item?.type === 'function_call_output');
    expect(outputs.map(itemText).join('\n')).toContain(text);
  } finally {
    await world.cleanup();
  }
});
