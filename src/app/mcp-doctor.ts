// `wmem doctor`, the MCP part: where the wmem MCP server is registered (each agent and scope),
// and whether the registered command starts a server that answers tools/list (spoken to with
// the SDK's own client, the way an agent would).
import { readConfigText } from '../agents/config-file.js';
import { MCP_TARGETS, type ServerCommand } from '../agents/mcp-register.js';
import type { AppEnv } from './env.js';

export interface McpRegistration {
  agent: string;
  displayName: string;
  scope: string;
  file: string;
  server: ServerCommand;
}

export interface McpCheck {
  server: ServerCommand;
  ok: boolean;
  /** Tools listed, or why it failed. */
  detail: string;
}

export interface McpDoctorReport {
  registrations: McpRegistration[];
  checks: McpCheck[];
  problems: string[];
}

const TIMEOUT_MS = 15_000;

/** Starts the server as the agent would, lists its tools, and stops it. */
export async function checkServer(server: ServerCommand, env: AppEnv): Promise<McpCheck> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const transport = new StdioClientTransport({ command: server.command, args: server.args, cwd: env.cwd, env: env.env as Record<string, string>, stderr: 'ignore' });
  const client = new Client({ name: 'wmem-doctor', version: '1' });
  try {
    const listed = (async () => {
      await client.connect(transport, { timeout: TIMEOUT_MS });
      return client.listTools(undefined, { timeout: TIMEOUT_MS });
    })();
    const { tools } = await listed;
    return { server, ok: tools.length > 0, detail: `${tools.length} tools: ${tools.map((t) => t.name).join(', ')}` };
  } catch (err) {
    return { server, ok: false, detail: (err as Error).message.split('\n')[0] ?? 'failed' };
  } finally {
    await client.close().catch(() => {});
  }
}

export async function mcpDoctor(env: AppEnv): Promise<McpDoctorReport> {
  const registrations: McpRegistration[] = [];
  const problems: string[] = [];
  for (const target of MCP_TARGETS) {
    for (const scope of target.scopes) {
      const file = target.file(scope, env);
      try {
        const server = target.registered(file, await readConfigText(file));
        if (server) registrations.push({ agent: target.id, displayName: target.displayName, scope, file, server });
      } catch (err) {
        // An unreadable file is the hooks' report to make when it is theirs; here, only say so.
        if ((await readConfigText(file).catch(() => undefined)) !== undefined) problems.push(`${file}: ${(err as Error).message}`);
      }
    }
  }
  const distinct = [...new Map(registrations.map((r) => [JSON.stringify(r.server), r.server])).values()];
  const checks = await Promise.all(distinct.map((server) => checkServer(server, env)));
  for (const check of checks) {
    if (!check.ok) problems.push(`the registered MCP server does not answer tools/list (${[check.server.command, ...check.server.args].join(' ')}: ${check.detail}): re-register with 'wmem install AGENT --mcp'`);
  }
  return { registrations, checks, problems };
}
