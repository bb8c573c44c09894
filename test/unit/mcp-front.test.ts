// The lean front of `wmem mcp`: what it answers itself before the SDK server has loaded, and how
// it hands the session over (initialize replayed with its answer dropped, waiting messages in
// order, then everything forwarded). The server here is a stand-in recording what it is given.
import { describe, expect, it, vi } from 'vitest';
import { PassThrough } from 'node:stream';
import { runFront, type FrontTransport } from '../../src/mcp/front.js';
import type { Manifest } from '../../src/mcp/manifest.js';

const manifest: Manifest = {
  supported: ['2025-11-25', '2025-06-18'],
  latest: '2025-11-25',
  initialize: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'wmem', version: '0' } },
  toolsList: { tools: [{ name: 'note' }] },
};

function harness() {
  const input = new PassThrough();
  const written: any[] = [];
  const seen: any[] = [];
  let loads = 0;
  let transport: FrontTransport | undefined;
  let release!: () => void;
  const loaded = new Promise<void>((resolve) => (release = resolve));
  const done = runFront({
    manifest,
    input,
    write: (line) => written.push(JSON.parse(line)),
    log: () => {},
    load: async (t) => {
      loads++;
      transport = t;
      await loaded;
      // The stand-in server answers every request it is given with its own name.
      t.onmessage = (m) => {
        seen.push(m);
        if (m.id !== undefined) void t.send({ jsonrpc: '2.0', id: m.id, result: { from: 'sdk', method: m.method } });
      };
      return async () => {};
    },
  });
  const send = (m: object) => input.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
  const tick = () => new Promise((r) => setTimeout(r, 5));
  return { input, written, seen, send, tick, release, done, loads: () => loads, transport: () => transport };
}

// vi.waitFor's default of 1 s is short for a few turns of the event loop on a loaded machine.
const SOON = { timeout: 30_000, interval: 5 };

describe('the MCP front', () => {
  it('answers initialize (negotiating the version), ping and tools/list itself, then loads the server', async () => {
    const h = harness();
    h.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
    h.send({ method: 'notifications/initialized' });
    h.send({ id: 2, method: 'ping' });
    await h.tick();
    expect(h.loads()).toBe(0);
    h.send({ id: 3, method: 'tools/list', params: {} });
    await vi.waitFor(() => expect(h.loads()).toBe(1), SOON);
    expect(h.written).toEqual([
      { jsonrpc: '2.0', id: 1, result: { ...manifest.initialize, protocolVersion: '2025-06-18' } },
      { jsonrpc: '2.0', id: 2, result: {} },
      { jsonrpc: '2.0', id: 3, result: manifest.toolsList },
    ]);
    h.release();
    await vi.waitFor(() => expect(h.seen).toHaveLength(2), SOON);
    // The server was told of the initialize (its answer dropped) and the initialized notification.
    expect(h.seen.map((m) => m.method)).toEqual(['initialize', 'notifications/initialized']);
    expect(h.written).toHaveLength(3);
    h.send({ id: 4, method: 'tools/list', params: {} });
    await vi.waitFor(() => expect(h.written).toHaveLength(4), SOON);
    expect(h.written[3]).toEqual({ jsonrpc: '2.0', id: 4, result: { from: 'sdk', method: 'tools/list' } });
    h.input.end();
    await h.done;
  });

  it('an unknown protocol version gets the latest; any other request waits for the server, in order', async () => {
    const h = harness();
    h.send({ id: 'a', method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
    h.send({ id: 'b', method: 'tools/call', params: { name: 'note', arguments: { text: 'x' } } });
    h.input.write('not json\n');
    h.send({ id: 'c', method: 'tools/list', params: {} });
    await vi.waitFor(() => expect(h.loads()).toBe(1), SOON);
    expect(h.written).toEqual([{ jsonrpc: '2.0', id: 'a', result: { ...manifest.initialize, protocolVersion: '2025-11-25' } }]);
    h.release();
    await vi.waitFor(() => expect(h.written).toHaveLength(3), SOON);
    expect(h.seen.map((m) => [m.id, m.method])).toEqual([
      ['__wmem_front_initialize__', 'initialize'],
      ['b', 'tools/call'],
      ['c', 'tools/list'],
    ]);
    expect(h.written.slice(1).map((m) => m.id)).toEqual(['b', 'c']);
    h.input.end();
    await h.done;
  });
});

describe('the end of input', () => {
  it('waits for the answer of every request read, not for a cancelled one, then stops the server', async () => {
    const input = new PassThrough();
    const written: any[] = [];
    let stopped = false;
    let server: FrontTransport | undefined;
    const done = runFront({
      input,
      write: (line) => written.push(JSON.parse(line)),
      log: () => {},
      // No manifest: the server loads at once and answers nothing until told (as a slow tool call).
      load: async (t) => {
        server = t;
        t.onmessage = () => {};
        return async () => void (stopped = true);
      },
    });
    const send = (m: object) => input.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
    send({ id: 1, method: 'tools/call', params: { name: 'note', arguments: { text: 'x' } } });
    send({ id: 2, method: 'tools/call', params: { name: 'note', arguments: { text: 'y' } } });
    send({ method: 'notifications/cancelled', params: { requestId: 2 } });
    input.end();
    let ended = false;
    void done.then(() => (ended = true));
    await vi.waitFor(() => expect(server).toBeDefined(), SOON);
    await new Promise((r) => setImmediate(r));
    expect(ended).toBe(false);
    await server!.send({ jsonrpc: '2.0', id: 1, result: {} });
    await done;
    expect(stopped).toBe(true);
    expect(written).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });
});
