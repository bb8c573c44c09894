// What the MCP server answers itself before the SDK sees a message (src/mcp/requests.ts): every
// malformed request gets -32600 or -32602 with one line naming the field; notifications, answers
// and well-formed requests go on to the SDK.
import { describe, expect, it } from 'vitest';
import { answerFirst, protoKeyPath } from '../../src/mcp/requests.js';

const TOOLS = ['note', 'search'];
const ask = (line: string) => answerFirst(JSON.parse(line), TOOLS) as any;

describe('answerFirst', () => {
  it('lets well-formed requests, notifications and answers through', () => {
    expect(ask('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","arguments":{"text":"x"}}}')).toBeUndefined();
    expect(ask('{"jsonrpc":"2.0","id":"a","method":"no/such/method"}')).toBeUndefined(); // the SDK says -32601
    expect(ask('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toBeUndefined();
    expect(ask('{"jsonrpc":"2.0","id":7,"result":{}}')).toBeUndefined();
  });

  it('answers a malformed envelope with -32600 and its id (null when it has none JSON-RPC allows)', () => {
    expect(ask('{"jsonrpc":"1.0","id":3,"method":"ping"}')).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'Invalid Request: jsonrpc: Invalid input: expected "2.0"' } });
    expect(ask('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":null}').error).toMatchObject({ code: -32600, message: expect.stringMatching(/^Invalid Request: params: /) });
    expect(ask('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}')).toMatchObject({ id: null, error: { code: -32600, message: 'Invalid Request: id: must be a string or an integer' } });
    expect(ask('{"jsonrpc":"2.0","id":9}').error.message).toMatch(/^Invalid Request: method: /);
  });

  it("answers bad params with -32602 naming the field, on one line", () => {
    const answer = ask('{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":5}}');
    expect(answer).toEqual({ jsonrpc: '2.0', id: 6, error: { code: -32602, message: 'Invalid params: params.uri: Invalid input: expected string, received number' } });
    expect(ask('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","arguments":5}}').error.message).toMatch(/^Invalid params: params\.arguments: /);
  });

  it('refuses a key named __proto__ anywhere, naming where', () => {
    expect(protoKeyPath(JSON.parse('{"a":[{"b":{"__proto__":1}}]}'))).toEqual(['a', '0', 'b', '__proto__']);
    expect(protoKeyPath({ a: { b: 1 } })).toBeUndefined();
    expect(ask('{"jsonrpc":"2.0","id":4,"method":"ping","__proto__":{}}').error).toEqual({ code: -32600, message: 'Invalid Request: __proto__: a key named __proto__ is not accepted' });
    expect(ask('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"note","arguments":{"__proto__":{"importance":7}}}}').error.code).toBe(-32602);
  });

  it('a tool name is one of the tools, never a name found up Object.prototype; a long one is cut', () => {
    for (const name of ['__proto__', 'constructor', 'hasOwnProperty']) {
      const answer = ask(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name } }));
      expect(answer.result).toEqual({ isError: true, content: [{ type: 'text', text: `wmem: unknown tool "${name}"\n  the tools are note, search` }] });
    }
    const long = ask(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x'.repeat(100_000) } }));
    expect(long.result.content[0].text.length).toBeLessThan(200);
  });
});
