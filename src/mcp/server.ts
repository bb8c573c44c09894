// `wmem mcp`: the session's working memory over the Model Context Protocol (stdio), with the
// official SDK. Tools are src/mcp/tools.ts; resources are the overview, the scratch notes, each
// detail file and workspace memory (list changes are announced; each can be subscribed to).
// Nothing but the protocol is written to stdout.
import { watch, type FSWatcher } from 'node:fs';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TOOLS, type ToolSpec } from './tools.js';
import { answerFirst } from './requests.js';
import { runFront } from './front.js';
import { appEnv, refusalText, type McpScope } from './scope.js';
import { resolveSession } from '../store/session.js';
import { WmemError } from '../ui/errors.js';
import { trackLocksPerTask } from '../store/fsx.js';
import { VERSION } from '../options.js';

const INSTRUCTIONS =
  'wmem keeps this session\'s working memory in plain files that survive context compaction: note decisions and findings as they happen (note), keep the overview current (set_section, append_section), search what was compacted away (search, show), check how full the context is (status), and keep durable project facts (remember).';

/** Turns a tool's outcome, or its refusal, into a result: a refusal is a tool error with the CLI's message. */
async function callTool(tool: ToolSpec, args: Record<string, unknown>, scope: McpScope): Promise<CallToolResult> {
  try {
    const { text, data } = await tool.run(args, scope);
    return { content: [{ type: 'text', text }], structuredContent: JSON.parse(JSON.stringify(data)) as Record<string, unknown> };
  } catch (err) {
    if (err instanceof WmemError) return { isError: true, content: [{ type: 'text', text: refusalText(err, scope) }] };
    scope.log(`wmem mcp: ${tool.name} failed: ${(err as Error)?.stack ?? String(err)}`);
    return { isError: true, content: [{ type: 'text', text: `wmem: internal error in ${tool.name}: ${(err as Error)?.message ?? String(err)} (logged on the server's stderr; please report it)` }] };
  }
}

/** A resource's text, or an MCP error carrying the CLI's message. */
async function readText(uri: URL, scope: McpScope, read: () => Promise<string>, mimeType = 'text/markdown') {
  try {
    return { contents: [{ uri: uri.href, mimeType, text: await read() }] };
  } catch (err) {
    if (err instanceof WmemError) throw new Error(refusalText(err, scope));
    throw err;
  }
}

async function fileText(scope: McpScope, file: string): Promise<string> {
  const { showFile } = await import('../app/show.js');
  const result = await showFile({ file }, appEnv(scope));
  if ('files' in result) throw new WmemError(`${file} is a folder`);
  return result.content;
}

async function detailNames(scope: McpScope): Promise<string[]> {
  const { showFile } = await import('../app/show.js');
  try {
    const result = await showFile({ file: 'detail' }, appEnv(scope));
    return 'files' in result ? result.files : [];
  } catch {
    return [];
  }
}

function registerResources(server: McpServer, scope: McpScope): void {
  server.registerResource('overview', 'wmem://overview', { title: 'Session overview', description: 'overview.md: the task, decisions, progress and next steps, injected into every prompt', mimeType: 'text/markdown' }, (uri) =>
    readText(uri, scope, () => fileText(scope, 'overview')),
  );
  server.registerResource('scratch', 'wmem://scratch', { title: 'Scratch notes', description: 'scratch.md: notes not yet consolidated into the overview', mimeType: 'text/markdown' }, (uri) =>
    readText(uri, scope, () => fileText(scope, 'scratch')),
  );
  server.registerResource(
    'workspace',
    'wmem://workspace',
    { title: 'Workspace memory', description: "the project's durable facts shared by its sessions (and the team file's), with their ids", mimeType: 'text/markdown' },
    (uri) =>
      readText(uri, scope, async () => {
        const { listMemories } = await import('../app/remember.js');
        const result = await listMemories({}, appEnv(scope));
        return result.rendered || 'no workspace memory yet';
      }),
  );
  const template = new ResourceTemplate('wmem://detail/{name}', {
    list: async () => ({
      resources: (await detailNames(scope)).map((name) => ({ uri: `wmem://detail/${encodeURIComponent(name)}`, name: `detail/${name}`, mimeType: 'text/markdown' })),
    }),
    complete: { name: async (value) => (await detailNames(scope)).filter((n) => n.startsWith(value)) },
  });
  server.registerResource('detail', template, { title: 'Detail file', description: 'a detail file: what compaction, consolidation or a migration kept in full', mimeType: 'text/markdown' }, (uri, variables) =>
    readText(uri, scope, () => {
      const raw = Array.isArray(variables.name) ? variables.name.join('/') : String(variables.name ?? '');
      let name: string;
      try {
        name = decodeURIComponent(raw);
      } catch {
        throw new WmemError(`invalid detail name ${JSON.stringify(raw)}`);
      }
      // One file of detail/ only: resolveInside (in show) refuses '..', absolute paths and links.
      if (!name || /[\\/]/.test(name)) throw new WmemError(`invalid detail name ${JSON.stringify(name)}`, { hint: 'a file name from the wmem://detail/ listing' });
      return fileText(scope, `detail/${name}`);
    }),
  );
}

export function createServer(scope: McpScope): McpServer {
  const server = new McpServer({ name: 'wmem', title: 'wmem working memory', version: VERSION }, { instructions: INSTRUCTIONS });
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: { title: tool.title, readOnlyHint: tool.readOnly, openWorldHint: false } },
      ((args: Record<string, unknown>) => callTool(tool, args ?? {}, scope)) as never,
    );
  }
  registerResources(server, scope);
  acceptSubscriptions(server);
  return server;
}

/** URIs a client subscribed to (resources/subscribe), per server. */
const subscriptions = new WeakMap<McpServer, Set<string>>();

/** Lets clients subscribe to a resource and be told (resources/updated) when it changes. */
function acceptSubscriptions(server: McpServer): void {
  const subscribed = new Set<string>();
  subscriptions.set(server, subscribed);
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
}

/** Calls `fn` once things settle (an atomic replace is a rename and more). */
function debounced(fn: () => void, ms = 50): () => void {
  let timer: NodeJS.Timeout | undefined;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(fn, ms);
    timer.unref();
  };
}

/** fs.watch that never throws and never keeps the process alive; undefined when it cannot watch. */
function watchQuietly(dir: string, onChange: (file: string) => void): FSWatcher | undefined {
  try {
    const watcher = watch(dir, (_event, file) => onChange(String(file ?? '')));
    watcher.on('error', () => watcher.close());
    watcher.unref();
    return watcher;
  } catch {
    return undefined;
  }
}

/**
 * Tells the client when the resource list changes (a detail file added or removed) and when a
 * subscribed resource changes. The session's folders are watched if the session exists when the
 * server starts.
 */
async function watchMemory(server: McpServer, scope: McpScope): Promise<FSWatcher[]> {
  let session;
  try {
    session = await resolveSession(scope.where);
  } catch (err) {
    if (err instanceof WmemError) scope.log(refusalText(err, scope));
    return [];
  }
  const subscribed = subscriptions.get(server) ?? new Set<string>();
  const pending = new Map<string, () => void>();
  const updated = (uri: string) => {
    if (!subscribed.has(uri) || !server.isConnected()) return;
    if (!pending.has(uri)) pending.set(uri, debounced(() => void server.server.sendResourceUpdated({ uri }).catch(() => {})));
    pending.get(uri)!();
  };
  const listChanged = debounced(() => server.isConnected() && server.sendResourceListChanged());
  const byName: Record<string, string> = { 'overview.md': 'wmem://overview', 'scratch.md': 'wmem://scratch' };
  const watchers = [
    watchQuietly(session.paths.detailDir, (file) => {
      listChanged();
      if (file) updated(`wmem://detail/${encodeURIComponent(file)}`);
    }),
    watchQuietly(session.paths.workingMemory, (file) => byName[file] && updated(byName[file])),
    watchQuietly(session.project.dir, (file) => file === 'workspace-memory.json' && updated('wmem://workspace')),
  ];
  return watchers.filter((w): w is FSWatcher => w !== undefined);
}

/** Every request gets an answer: a malformed one, or a call of a tool not served, is answered here (requests.ts), not dropped. */
function answerMalformed(transport: Transport): void {
  const serve = transport.onmessage!;
  const names = TOOLS.map((tool) => tool.name);
  transport.onmessage = (message, extra) => {
    const answer = answerFirst(message as Record<string, unknown>, names);
    if (answer) void transport.send(answer as never).catch(() => {});
    else serve(message, extra);
  };
}

/** Connects a server to `transport` and watches the session for the client; returns how to stop it. */
export async function startServer(scope: McpScope, transport: Transport): Promise<() => Promise<void>> {
  // Calls are served side by side: each checks only the locks it holds itself before a commit.
  trackLocksPerTask();
  const server = createServer(scope);
  await server.connect(transport);
  answerMalformed(transport);
  const watchers = await watchMemory(server, scope);
  return async () => {
    for (const watcher of watchers) watcher.close();
    await server.close().catch(() => {});
  };
}

/**
 * Serves on stdin/stdout until the client closes stdin, through the lean entry's reader
 * (front.ts) without its early answers: every request read is answered before the server ends.
 */
export async function serveStdio(scope: McpScope): Promise<void> {
  await runFront({
    input: process.stdin,
    write: (line) => process.stdout.write(line),
    load: (transport) => startServer(scope, transport as unknown as Transport),
    log: scope.log,
  });
}
