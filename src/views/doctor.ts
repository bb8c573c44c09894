// Pure: `wmem doctor`'s report for people, one block per agent.
import type { AgentReport, DoctorResult } from '../app/doctor.js';
import type { ConfigStatus } from '../agents/adapter.js';

function age(from: Date, to: Date): string {
  const s = Math.max(0, Math.round((to.getTime() - from.getTime()) / 1000));
  if (s < 120) return `${s}s ago`;
  if (s < 7200) return `${Math.round(s / 60)}m ago`;
  if (s < 172800) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}

function scopeState(s: ConfigStatus): string {
  const total = s.installed.length + s.missing.length;
  if (s.error) return 'unreadable';
  if (!s.exists) return 'no file';
  if (s.installed.length === total) return `installed (${total}/${total})`;
  return s.installed.length ? `partly installed (${s.installed.length}/${total})` : 'no wmem hooks';
}

function agentLines(report: AgentReport, now: Date): string[] {
  const lines = [`${report.displayName} hooks`];
  for (const s of report.scopes) lines.push(`  ${s.scope.padEnd(8)} ${scopeState(s).padEnd(26)} ${s.file}`);
  const command = report.command;
  lines.push(command ? `command    ${command.runs ? 'runs' : 'FAILS'}: ${command.prefix}${command.output ? `  (${command.output})` : ''}` : 'command    (none installed)');
  lines.push('last fired');
  for (const [event, record] of Object.entries(report.fired)) {
    lines.push(`  ${event.padEnd(20)} ${record ? `${age(new Date(record.at), now)} ${record.ok ? 'ok' : 'FAILED'}${record.note ? ` — ${record.note}` : ''}` : 'never'}`);
  }
  return lines;
}

function mcpLines({ mcp }: DoctorResult): string[] {
  if (!mcp.registrations.length) return ["MCP server  not registered (wmem install AGENT --mcp)"];
  const lines = ['MCP server'];
  for (const r of mcp.registrations) lines.push(`  ${r.agent.padEnd(9)}${r.scope.padEnd(9)}${r.file}`);
  for (const c of mcp.checks) lines.push(`  ${c.ok ? 'answers' : 'FAILS'}: ${[c.server.command, ...c.server.args].join(' ')}  (${c.detail})`);
  return lines;
}

export function renderDoctor(result: DoctorResult, now: Date): string {
  const lines = result.agents.flatMap((r) => agentLines(r, now));
  lines.push(...mcpLines(result));
  if (result.switches.line) lines.push(`switched off: ${result.switches.line}`);
  if (result.recentErrors.length) {
    lines.push(`recent hook errors (${result.log})`);
    for (const l of result.recentErrors) lines.push(`  ${l}`);
  }
  lines.push(result.ok ? 'ok' : `problems:\n${result.problems.map((p) => `  - ${p}`).join('\n')}`);
  return lines.join('\n');
}
