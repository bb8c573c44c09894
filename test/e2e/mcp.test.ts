// End-to-end: `wmem mcp` spoken to by the MCP SDK's own client over stdio, against the built wmem
// and a temporary home. Every tool is called, every resource read, each error path checked, and
// concurrent writers (two MCP clients and the CLI) lose nothing.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { BIN, runJson, sandbox, type Sandbox } from '../helpers/cli.js';
import { generatedHistory, sessionWith } from '../helpers/history-e2e.js';

interface Connected {
  client: Client;
  stderr: () => string;
  /** Errors the client saw on the stream (a non-JSON line on stdout lands here). */
  streamErrors: Error[];
  close(): Promise<void>;
}

let box: Sandbox;
const open: Connected[] = [];

async function connect(args: string[] = [], cwd = box.project): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: box.home, WMEM_HOME: box.home, NO_COLOR: '1' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const streamErrors: Error[] = [];
  const client = new Client({ name: 'wmem-e2e', version: '1.0.0' });
  client.onerror = (err) => streamErrors.push(err);
  await client.connect(transport);
  const connected = { client, stderr: () => stderr, streamErrors, close: () => client.close() };
  open.push(connected);
  return connected;
}

type ToolResult = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: any };
const call = async (c: Connected, name: string, args: Record<string, unknown> = {}) => (await c.client.callTool({ name, arguments: args })) as ToolResult;
const textOf = (r: ToolResult) => r.content.map((c) => c.text ?? '').join('\n');

let scratch: string;
beforeEach(async () => {
  box = await sandbox();
  const init = await runJson(box, ['init']);
  scratch = path.join(init.path, 'working-memory', 'scratch.md');
});
afterEach(async () => {
  for (const c of open.splice(0)) {
    expect(c.streamErrors).toEqual([]);
    await c.close();
  }
  await box.cleanup();
});

describe('wmem mcp', () => {
  it('lists the ten tools with titles, descriptions and JSON schemas, and the resources', async () => {
    const c = await connect();
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['append_section', 'compact', 'consolidate', 'forget', 'note', 'remember', 'search', 'set_section', 'show', 'status']);
    for (const tool of tools) {
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.description!.length, tool.name).toBeGreaterThan(60);
      expect(tool.inputSchema.type).toBe('object');
    }
    const note = tools.find((t) => t.name === 'note')!;
    expect(note.inputSchema.required).toEqual(['text']);
    expect(note.inputSchema.properties).toMatchObject({ importance: { type: 'number', minimum: 0, maximum: 1 }, tags: { type: 'array' } });
    expect(tools.find((t) => t.name === 'remember')!.inputSchema.properties).toMatchObject({ type: { enum: ['feedback', 'project', 'decision', 'reference'] } });
    expect(c.client.getServerCapabilities()).toMatchObject({ tools: {}, resources: { listChanged: true } });
    const { resources } = await c.client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['wmem://overview', 'wmem://scratch', 'wmem://workspace']);
    const { resourceTemplates } = await c.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['wmem://detail/{name}']);
  });

  it('answers tools/list before the SDK has loaded with exactly what the SDK server answers after', async () => {
    const c = await connect();
    const early = await c.client.listTools();
    await call(c, 'status'); // loads the SDK server
    expect(await c.client.listTools()).toEqual(early);
    expect(c.client.getServerVersion()).toMatchObject({ name: 'wmem', version: expect.any(String) });
    expect(c.client.getInstructions()).toMatch(/working memory/);
  });

  it('takes a request that comes before tools/list, and shrugs off a line that is not JSON', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: box.project, env: { PATH: process.env.PATH ?? '', HOME: box.home, WMEM_HOME: box.home } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const line = (m: object) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
    line({ id: 1, method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    line({ method: 'notifications/initialized' });
    child.stdin.write('this is not json\n');
    line({ id: 2, method: 'tools/call', params: { name: 'note', arguments: { text: 'straight after initialize' } } });
    line({ id: 3, method: 'resources/list', params: {} });
    const answers = await new Promise<any[]>((resolve) => {
      child.stdout.on('data', () => {
        const parsed = out.split('\n').filter(Boolean).map((l) => JSON.parse(l));
        if (parsed.length >= 3) resolve(parsed);
      });
    });
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    // Requests are served concurrently: answers come in any order.
    answers.sort((a, b) => a.id - b.id);
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    expect(answers[0].result.protocolVersion).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(answers[0].result.protocolVersion).not.toBe('1999-01-01');
    expect(answers[1].result.isError).toBeFalsy();
    expect(answers[2].result.resources.length).toBe(3);
    expect(await readFile(scratch, 'utf8')).toContain('straight after initialize');
  });

  /** A raw client: lines written to `wmem mcp`, its answers parsed; `end` closes stdin and waits for the exit. */
  function raw(args: string[] = []) {
    const child = spawn(process.execPath, [BIN, 'mcp', ...args], { cwd: box.project, env: { PATH: process.env.PATH ?? '', HOME: box.home, WMEM_HOME: box.home } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const answers = () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    return {
      write: (m: object | string) => child.stdin.write((typeof m === 'string' ? m : JSON.stringify(m)) + '\n'),
      answers,
      /** Resolves once `n` answers came (stdin still open). */
      until: (n: number) => new Promise<any[]>((resolve) => {
        const check = () => answers().length >= n && resolve(answers());
        child.stdout.on('data', check);
        check();
      }),
      end: async () => {
        child.stdin.end();
        await exited;
        return answers();
      },
    };
  }
  const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

  // `wmem mcp --` is served by the full CLI (the lean entry takes no `--`): the same reader.
  it.each([[[]], [['--']]])('answers every request it read before stdin closed, then exits (wmem mcp %j)', async (args: string[]) => {
    const r = raw(args);
    r.write(INIT);
    r.write({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'note', arguments: { text: 'written, and answered too' } } });
    r.write({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'wmem://overview' } });
    const answers = (await r.end()).sort((a, b) => a.id - b.id);
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3]);
    expect(answers[1].result.content[0].text).toContain('written, and answered too');
    expect(answers[2].result.contents[0].uri).toBe('wmem://overview');
    expect(await readFile(scratch, 'utf8')).toContain('written, and answered too');
  });

  it('a client gone whole (stdout closed too): the call is done, the server ends, one line on stderr and no trace', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: box.project, env: { PATH: process.env.PATH ?? '', HOME: box.home, WMEM_HOME: box.home } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.stdout.destroy(); // before the server writes anything: its first answer meets a closed pipe
    child.stdin.write(JSON.stringify(INIT) + '\n');
    child.stdin.end(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'note', arguments: { text: 'asked by a client that left' } } }) + '\n');
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/^wmem mcp: stdout is closed \(EPIPE\): answers dropped\n$/);
    expect(await readFile(scratch, 'utf8')).toContain('asked by a client that left');
  });

  it('answers a malformed request with -32600 or -32602 and one line naming the field, and keeps serving', async () => {
    const r = raw();
    r.write(INIT);
    r.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const asked: Array<[object | string, number, RegExp]> = [
      [{ jsonrpc: '2.0', id: 2, method: 'tools/call', params: null }, -32600, /^Invalid Request: params: /],
      [{ jsonrpc: '1.0', id: 3, method: 'ping' }, -32600, /^Invalid Request: jsonrpc: /],
      ['{"jsonrpc":"2.0","id":4,"method":"ping","__proto__":{"polluted":true}}', -32600, /^Invalid Request: __proto__: /],
      ['{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"note","arguments":{"text":"x","__proto__":{"importance":7}}}}', -32602, /^Invalid params: params\.arguments\.__proto__: /],
      [{ jsonrpc: '2.0', id: 6, method: 'resources/read', params: { uri: 5 } }, -32602, /^Invalid params: params\.uri: .*expected string/],
      [{ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 42 } }, -32602, /^Invalid params: params\.name: /],
      [{ jsonrpc: '2.0', id: 8.5, method: 'ping' }, -32600, /^Invalid Request: id: must be a string or an integer$/],
    ];
    for (const [m] of asked) r.write(m);
    r.write({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'note', arguments: { text: 'still serving' } } });
    const answers = await r.until(asked.length + 2);
    for (const [m, code, message] of asked) {
      const id = typeof m === 'string' ? JSON.parse(m).id : (m as { id: number }).id;
      const answer = answers.find((a) => a.id === id);
      expect(answer?.error, JSON.stringify(m)).toMatchObject({ code, message: expect.stringMatching(message) });
      expect(answer.error.message).not.toContain('\n');
    }
    expect(answers.find((a) => a.id === 9).result.isError).toBeFalsy();
    await r.end();
    expect(await readFile(scratch, 'utf8')).not.toMatch(/ x$/m);
  });

  it('checks a request answered before the server has loaded as it checks the others; a batch gets one answer saying so', async () => {
    const r = raw();
    // First lines of all, answered from the manifest when well formed: these are not.
    r.write({ jsonrpc: '2.0', id: { x: 1 }, method: 'ping' });
    r.write({ ...INIT, id: 1.5 });
    r.write({ jsonrpc: '2.0', id: 3, method: 'ping', extra: true });
    r.write([{ jsonrpc: '2.0', id: 4, method: 'ping' }]);
    const answers = await r.end();
    expect(answers).toHaveLength(4);
    for (const answer of answers) expect(answer.error?.code, JSON.stringify(answer)).toBe(-32600);
    expect(answers.map((a) => a.error.message).join('\n')).toMatch(/batches are not supported/);
  });

  it('calls each tool: results carry the CLI wording and structured content', async () => {
    const c = await connect();
    const noted = await call(c, 'note', { text: 'chose SQLite over Postgres: one file, no server', importance: 0.9, tags: ['decisions'] });
    expect(noted.isError).toBeFalsy();
    expect(noted.structuredContent).toMatchObject({ file: scratch });
    expect(textOf(noted)).toBe(noted.structuredContent.note);
    expect(await readFile(scratch, 'utf8')).toContain('chose SQLite over Postgres: one file, no server');

    const set = await call(c, 'set_section', { section: 'task', text: 'Port the importer to streams' });
    expect(textOf(set)).toMatch(/^set task \(\d+\/\d+ chars\)$/);
    expect(set.structuredContent).toMatchObject({ section: 'task' });
    const appended = await call(c, 'append_section', { section: 'progress', text: '- parser done' });
    expect(textOf(appended)).toMatch(/^appended to progress/);
    const shown = await call(c, 'show', {});
    expect(textOf(shown)).toContain('Port the importer to streams');
    expect(textOf(shown)).toContain('- parser done');
    expect(shown.structuredContent).toMatchObject({ truncated: false });

    const found = await call(c, 'search', { query: 'SQLite Postgres' });
    expect(found.structuredContent.hits.length).toBeGreaterThan(0);
    expect(textOf(found)).toMatch(/scratch\.md:\d+ /);

    const remembered = await call(c, 'remember', { text: 'The importer must keep memory flat for 10 GB inputs', type: 'project' });
    expect(remembered.structuredContent).toMatchObject({ status: 'added', entry: { type: 'project' } });
    const id = remembered.structuredContent.entry.id;
    expect(textOf(remembered)).toBe(`remembered ${id}: [project] The importer must keep memory flat for 10 GB inputs`);

    const status = await call(c, 'status', { tokens_used: 150_000, tokens_max: 200_000 });
    expect(status.structuredContent).toMatchObject({ tokens_used: 150_000, tokens_max: 200_000, tokens_percent: 75, notes: 1 });
    expect(status.structuredContent.pressure).toMatch(/^(safe|moderate|high|critical)$/);
    expect(status.structuredContent.action_hint).toBeTruthy();
    expect(textOf(status)).toMatch(/pressure\s+\w+; hint: /);

    const consolidated = await call(c, 'consolidate', {});
    expect(consolidated.structuredContent).toMatchObject({ consumed: 1, dryRun: false });
    expect(textOf(consolidated)).toMatch(/^consolidated 1 note/);
    expect(await readFile(scratch, 'utf8')).not.toContain('chose SQLite');

    const forgot = await call(c, 'forget', { id });
    expect(textOf(forgot)).toBe(`forgot ${id}: The importer must keep memory flat for 10 GB inputs`);
    // What is left is the decision the consolidation offered to workspace memory (a session's key decisions outlive it).
    const left = (await runJson(box, ['memories'])).entries as { id: string; type: string; source: string; text: string }[];
    expect(left.map((e) => e.id)).not.toContain(id);
    expect(left).toMatchObject([{ type: 'decision', source: 'session', text: expect.stringContaining('chose SQLite over Postgres') }]);
  });

  it('compacts only as a dry run unless dry_run is false', async () => {
    const files = await sessionWith(box, generatedHistory(12));
    const before = await readFile(files.messages, 'utf8');
    const c = await connect();
    const dry = await call(c, 'compact', { keep_recent: 3 });
    expect(dry.structuredContent).toMatchObject({ dryRun: true, compacted: false, counts: { turnsBefore: 12, turnsArchived: 9 } });
    expect(textOf(dry)).toMatch(/^Dry run: would move 9 of 12 turns/);
    expect(await readFile(files.messages, 'utf8')).toBe(before);
    const real = await call(c, 'compact', { keep_recent: 3, dry_run: false });
    expect(real.structuredContent).toMatchObject({ dryRun: false, compacted: true });
    expect(textOf(real)).toMatch(/Undo: wmem restore /);
    expect(await readFile(files.messages, 'utf8')).not.toBe(before);
  });

  it('serves the overview, scratch notes, workspace memory and each detail file as resources, and says when the list changes', async () => {
    const c = await connect();
    await call(c, 'note', { text: 'a note for the scratch resource' });
    await runJson(box, ['remember', 'Releases are cut from main every Tuesday', '--type', 'project']);
    const read = async (uri: string) => (await c.client.readResource({ uri })).contents.map((x) => ('text' in x ? x.text : '')).join('');
    expect(await read('wmem://overview')).toMatch(/^---\n|^# /);
    expect(await read('wmem://scratch')).toContain('a note for the scratch resource');
    expect(await read('wmem://workspace')).toContain('- [project] Releases are cut from main every Tuesday');

    let changed = 0;
    const seen = new Promise<void>((resolve) =>
      c.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
        changed++;
        resolve();
      }),
    );
    const detailDir = path.join(path.dirname(scratch), 'detail');
    await mkdir(detailDir, { recursive: true });
    await writeFile(path.join(detailDir, 'design notes.md'), '# Design\nstreams all the way\n');
    await seen;
    expect(changed).toBeGreaterThan(0);
    const { resources } = await c.client.listResources();
    expect(resources.map((r) => r.uri)).toContain('wmem://detail/design%20notes.md');
    expect(await read('wmem://detail/design%20notes.md')).toBe('# Design\nstreams all the way\n');
  });

  // How long a notification may take to arrive: vi.waitFor's default of 1 s is short for a watch
  // event, a timer and a message through the server's pipe on a loaded machine (nothing promises
  // a time; the test's own limit still ends a hang).
  const NOTIFIED = { timeout: 30_000, interval: 20 };
  it('tells a subscribed client when the overview, the scratch notes or workspace memory change', async () => {
    const c = await connect();
    expect(c.client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true, listChanged: true });
    const updated = new Set<string>();
    c.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.add(n.params.uri));
    for (const uri of ['wmem://overview', 'wmem://scratch', 'wmem://workspace']) await c.client.subscribeResource({ uri });
    await call(c, 'status'); // the server has loaded and watches the session
    await call(c, 'note', { text: 'a note someone subscribed to' });
    await vi.waitFor(() => expect(updated).toContain('wmem://scratch'), NOTIFIED);
    expect(updated).not.toContain('wmem://overview');
    await call(c, 'set_section', { section: 'task', text: 'Watch the overview' });
    await vi.waitFor(() => expect(updated).toContain('wmem://overview'), NOTIFIED);
    await box.run(['remember', 'Subscribers hear about workspace memory changes too', '--type', 'project']);
    await vi.waitFor(() => expect(updated).toContain('wmem://workspace'), NOTIFIED);
    await c.client.unsubscribeResource({ uri: 'wmem://scratch' });
  });

  it('refuses what the CLI refuses, with the message the CLI prints, and keeps serving', async () => {
    const c = await connect();
    const secret = 'deploy key AKIAIOSFODNN7EXAMPLE for the bucket';
    const refused = await call(c, 'note', { text: secret });
    expect(refused.isError).toBe(true);
    const cli = await box.run(['note', secret]);
    expect(cli.exitCode).toBe(2);
    expect(textOf(refused)).toBe(String(cli.stderr).trimEnd());
    expect(await readFile(scratch, 'utf8')).not.toContain('AKIA');

    const unknown = await call(c, 'set_section', { section: 'no_such_section', text: 'x' });
    expect(unknown.isError).toBe(true);
    const cliUnknown = await box.run(['set', 'no_such_section', 'x']);
    expect(textOf(unknown)).toBe(String(cliUnknown.stderr).trimEnd());

    const gate = await call(c, 'remember', { text: 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789 is ours', type: 'reference' });
    expect(gate.isError).toBe(true);
    expect(textOf(gate)).toMatch(/^wmem: refused \(secret\)/);

    for (const bad of [{}, { text: 'x', importance: 2 }, { text: 'x', tags: 'decisions' }, { text: 42 }]) {
      const r = await call(c, 'note', bad);
      expect(r.isError, JSON.stringify(bad)).toBe(true);
      expect(textOf(r)).toMatch(/Input validation error/);
    }
    expect(textOf(await call(c, 'compact', { keep_recent: -1 }))).toMatch(/Input validation error/);

    for (const file of ['../../../../etc/passwd', '/etc/passwd', 'detail/../../meta.json', 'archive/../../../x']) {
      const r = await call(c, 'show', { file });
      expect(r.isError, file).toBe(true);
      expect(textOf(r)).not.toContain('root:');
    }
    await expect(c.client.readResource({ uri: 'wmem://detail/..%2F..%2Fmeta.json' })).rejects.toThrow(/invalid detail name|climbs out/);
    await expect(c.client.readResource({ uri: 'wmem://detail/missing.md' })).rejects.toThrow(/does not exist/);

    const unknownTool = await c.client.callTool({ name: 'rm_rf', arguments: {} });
    expect(unknownTool.isError).toBe(true);
    // A name found up Object.prototype is no tool either.
    for (const name of ['__proto__', 'constructor', 'toString']) expect(textOf((await c.client.callTool({ name, arguments: {} })) as ToolResult)).toMatch(new RegExp(`^wmem: unknown tool "${name}"\\n  the tools are note, `));
    // A miss repeats a long query's start only.
    const missed = await call(c, 'search', { query: 'zqxj '.repeat(40_000) });
    const miss = textOf(missed);
    expect(miss).toMatch(/^no match for "(zqxj ){40}"… \(199999 characters\) in \d+ files$/);
    // Nor does its structured content carry it back whole: what was searched, and the length sent.
    expect((missed as { structuredContent: { query: string; queryChars: number } }).structuredContent).toMatchObject({ query: expect.stringMatching(/^(zqxj ){399}zqxj$/), queryChars: 199_999 });
    // Still serving after all that.
    expect((await call(c, 'note', { text: 'still here' })).isError).toBeFalsy();
  });

  it('started in a folder without a session, says so naming the folders, and creates nothing', async () => {
    const elsewhere = path.join(box.root, 'elsewhere');
    await mkdir(elsewhere);
    const c = await connect([], elsewhere);
    const r = await call(c, 'note', { text: 'where does this go?' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(`no session for ${elsewhere}`);
    expect(textOf(r)).toContain(path.join(box.home, 'sessions'));
    expect(textOf(r)).toMatch(/--session ID/);
    await expect(c.client.readResource({ uri: 'wmem://overview' })).rejects.toThrow(/no session for/);
    expect(c.stderr()).toContain(`no session for ${elsewhere}`);
    expect((await box.run(['status'], { cwd: elsewhere })).exitCode).toBe(2);
    // No project folder, no session: only the project that ran `wmem init` has one.
    expect(await readdir(path.join(box.home, 'sessions'))).toHaveLength(1);

    const named = await connect(['--session', 'not-a-session']);
    const r2 = await call(named, 'status');
    expect(r2.isError).toBe(true);
    expect(textOf(r2)).toMatch(/unknown session not-a-session for /);
  });

  it('serves the session named by --session', async () => {
    const other = await runJson(box, ['init', '--new']);
    const c = await connect(['--session', path.basename(path.dirname(path.dirname(scratch)))]);
    expect((await call(c, 'note', { text: 'goes to the first session' })).isError).toBeFalsy();
    expect(await readFile(scratch, 'utf8')).toContain('goes to the first session');
    expect(await readFile(path.join(other.path, 'working-memory', 'scratch.md'), 'utf8')).not.toContain('goes to the first session');
  });

  it('loses no note when two clients and the CLI write at once', async () => {
    const [a, b] = await Promise.all([connect(), connect()]);
    const n = 15;
    await Promise.all([
      ...Array.from({ length: n }, (_, i) => call(a, 'note', { text: `from a ${i}` })),
      ...Array.from({ length: n }, (_, i) => call(b, 'note', { text: `from b ${i}` })),
      ...Array.from({ length: 5 }, (_, i) => box.run(['note', `from cli ${i}`])),
    ]).then((results) => results.forEach((r) => expect('isError' in r ? r.isError : (r as { exitCode?: number }).exitCode).toBeFalsy()));
    const lines = (await readFile(scratch, 'utf8')).split('\n');
    for (const who of ['a', 'b']) for (let i = 0; i < n; i++) expect(lines.filter((l) => l.endsWith(` from ${who} ${i}`))).toHaveLength(1);
    for (let i = 0; i < 5; i++) expect(lines.filter((l) => l.endsWith(` from cli ${i}`))).toHaveLength(1);
  });
});

describe('wmem install AGENT --mcp', () => {
  it('registers the server in .mcp.json the way Claude Code starts it, idempotently; doctor checks it answers; uninstall takes it away', async () => {
    const file = path.join(box.project, '.mcp.json');
    const first = await box.run(['install', 'claude', '--mcp']);
    expect(first.exitCode, String(first.stderr)).toBe(0);
    expect(String(first.stderr)).toMatch(/registered the wmem MCP server with Claude Code in .*\.mcp\.json/);
    const written = await readFile(file, 'utf8');
    const entry = JSON.parse(written).mcpServers.wmem;
    expect(entry).toMatchObject({ type: 'stdio', args: [expect.stringMatching(/bin\/wmem\.js$/), 'mcp'] });

    // Started exactly as registered, it serves the project's session.
    const transport = new StdioClientTransport({ command: entry.command, args: entry.args, cwd: box.project, env: { PATH: process.env.PATH ?? '', HOME: box.home, WMEM_HOME: box.home }, stderr: 'ignore' });
    const client = new Client({ name: 'as-claude', version: '1' });
    await client.connect(transport);
    expect((await client.listTools()).tools).toHaveLength(10);
    expect((await client.callTool({ name: 'note', arguments: { text: 'via the registered command' } })).isError).toBeFalsy();
    await client.close();
    expect(await readFile(scratch, 'utf8')).toContain('via the registered command');

    const again = await box.run(['install', 'claude', '--mcp']);
    expect(String(again.stderr)).toMatch(/already registered/);
    expect(await readFile(file, 'utf8')).toBe(written);

    // Once: it exits 1 here (no hooks installed), its report is on stdout all the same. It starts
    // the server and waits up to 15 s for it: more than the run's usual 20 s at a heavy load.
    const doctor = JSON.parse(String((await box.run(['doctor', '--json'], { timeout: 60_000 })).stdout));
    expect(doctor.mcp.registrations).toEqual([expect.objectContaining({ agent: 'claude', scope: 'project', file })]);
    expect(doctor.mcp.checks).toEqual([expect.objectContaining({ ok: true, detail: expect.stringMatching(/^10 tools: /) })]);

    const removed = await box.run(['uninstall', 'claude', '--mcp']);
    expect(removed.exitCode).toBe(0);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({});
    const doctorAfter = JSON.parse(String((await box.run(['doctor', '--json'], { timeout: 60_000 })).stdout));
    expect(doctorAfter.mcp.registrations).toEqual([]);
    // Seven runs of wmem, three of them servers: 43 s at CI's load, 79 s at a heavier one.
  });

  it('edits only [mcp_servers.wmem] of Codex config.toml, and gives the bytes back', async () => {
    const codexHome = path.join(box.root, 'codex-home');
    await mkdir(codexHome);
    const config = path.join(codexHome, 'config.toml');
    const before = '# mine\nmodel = "gpt-5.1"\n\n[mcp_servers.other]\ncommand = "other"\n';
    await writeFile(config, before);
    const env = { CODEX_HOME: codexHome };
    expect((await box.run(['install', 'codex', '--mcp'], { env })).exitCode).toBe(0);
    const after = await readFile(config, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toMatch(/^\n\[mcp_servers\.wmem\]\ncommand = ".+"\nargs = \[ ".+bin\/wmem\.js", "mcp" \]\n$/);
    const dry = await box.run(['uninstall', 'codex', '--mcp', '--dry-run'], { env });
    expect(String(dry.stdout) + '\n').toBe(before); // execa drops the last newline
    expect(await readFile(config, 'utf8')).toBe(after);
    expect((await box.run(['uninstall', 'codex', '--mcp'], { env })).exitCode).toBe(0);
    expect(await readFile(config, 'utf8')).toBe(before);
  });

  it('refuses a config it cannot parse, and an agent it does not know, changing nothing', async () => {
    const settings = path.join(box.project, '.gemini', 'settings.json');
    await mkdir(path.dirname(settings));
    await writeFile(settings, '{"theme": "dark",');
    const r = await box.run(['install', 'gemini', '--mcp']);
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toContain(`${settings} is not valid JSON`);
    expect(await readFile(settings, 'utf8')).toBe('{"theme": "dark",');
    const unknown = await box.run(['install', 'cursor', '--mcp']);
    expect(unknown.exitCode).toBe(2);
    expect(String(unknown.stderr)).toMatch(/known agents: claude, codex, gemini, opencode/);
    const opencode = await box.run(['install', 'opencode', '--mcp', '--dry-run']);
    expect(JSON.parse(String(opencode.stdout))).toMatchObject({ mcp: { wmem: { type: 'local', command: [expect.any(String), expect.stringMatching(/wmem\.js$/), 'mcp'], enabled: true } } });
  });
});
