// A minimal MCP server on stdio (JSON-RPC lines, no SDK) for probing how an agent offers and
// calls MCP tools: one tool `note {text}` that answers "noted: TEXT". Every message it receives
// is appended to the file named by its first argument.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const log = process.argv[2];
const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (log) appendFileSync(log, line + '\n');
  const { id, method, params } = message;
  if (method === 'initialize') send({ jsonrpc: '2.0', id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'probe', version: '1.0.0' } } });
  else if (method === 'tools/list') send({ jsonrpc: '2.0', id, result: { tools: [{ name: 'note', description: 'Keep a note', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }] } });
  else if (method === 'tools/call') send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `noted: ${params.arguments?.text}` }] } });
  else if (id !== undefined) send({ jsonrpc: '2.0', id, result: {} });
});
