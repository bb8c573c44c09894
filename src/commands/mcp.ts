// `wmem mcp [--session ID] [--home DIR]`: serves the session's working memory to an MCP client on
// stdio (src/mcp/server.ts). stdout belongs to the protocol: anything else goes to stderr.
import type { CommandResult, RunContext } from './run.js';

export async function run(_options: unknown, ctx: RunContext): Promise<CommandResult> {
  // A stray console.log from any module would corrupt the protocol stream.
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = console.info = console.debug = toStderr;
  const log = (message: string) => process.stderr.write(message.endsWith('\n') ? message : message + '\n');
  const { guardProcess } = await import('../mcp/front.js');
  guardProcess(log);
  const { serveStdio } = await import('../mcp/server.js');
  await serveStdio({ where: ctx, now: ctx.now, bin: process.argv[1], log });
  // The session is over when the client closes stdin: nothing to print, even with --json.
  ctx.json = false;
  return { data: null, text: '' };
}
