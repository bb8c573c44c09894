// Build time (npm run build): the server's own answers to `initialize` and `tools/list`, asked of
// the real SDK server through an in-memory transport and saved as dist/mcp/manifest.json. The
// lean entry (src/entries/fast-mcp.ts) answers those two requests from it while the SDK loads, so a
// client's tools/list is answered about as fast as node starts. Never hand-written: the answers
// are the SDK's, byte for byte.
import { writeFileSync } from 'node:fs';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createServer } from './server.js';

export interface Manifest {
  /** Protocol versions the SDK accepts; any other gets `latest`. */
  supported: string[];
  latest: string;
  /** The initialize result for `latest` (its protocolVersion is set per client). */
  initialize: Record<string, unknown>;
  toolsList: Record<string, unknown>;
}

export async function buildManifest(): Promise<Manifest> {
  const [client, server] = InMemoryTransport.createLinkedPair();
  const answers = new Map<number, JSONRPCMessage>();
  client.onmessage = (message) => {
    if ('id' in message && typeof message.id === 'number') answers.set(message.id, message);
  };
  const mcp = createServer({ where: { home: '/nonexistent', cwd: '/', env: {} }, now: () => new Date(0), log: () => {} });
  await mcp.connect(server);
  await client.start();
  const ask = async (id: number, method: string, params: Record<string, unknown>) => {
    await client.send({ jsonrpc: '2.0', id, method, params });
    for (let i = 0; i < 100 && !answers.has(id); i++) await new Promise((r) => setTimeout(r, 5));
    const answer = answers.get(id) as { result?: Record<string, unknown> } | undefined;
    if (!answer?.result) throw new Error(`the server gave no result for ${method}`);
    return answer.result;
  };
  const initialize = await ask(1, 'initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'wmem-build', version: '0' } });
  await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const toolsList = await ask(2, 'tools/list', {});
  await mcp.close();
  return { supported: [...SUPPORTED_PROTOCOL_VERSIONS], latest: LATEST_PROTOCOL_VERSION, initialize, toolsList };
}

export async function writeManifest(file: string): Promise<void> {
  writeFileSync(file, JSON.stringify(await buildManifest()) + '\n');
}
