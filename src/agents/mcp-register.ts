// Registering `wmem mcp` with each agent, as pure planners (a config file's text in, the new text
// out): Claude Code's .mcp.json (or its user config) and Gemini CLI's settings.json `mcpServers`,
// OpenCode's opencode.json `mcp`, and Codex's `[mcp_servers.wmem]` table in config.toml. Only
// wmem's entry is touched: JSON files are edited in place (new text is spliced in next to the
// last sibling, so every other byte stays, comments included), and the TOML table is cut or written as text, with the
// file parsed before and after (smol-toml) to prove that nothing else changed. A file that does
// not parse is refused and left untouched. Installing twice changes nothing.
// The package's ESM build: its `main` is a UMD file whose lazy requires a bundle cannot follow.
import { parse as parseJsonc, parseTree, printParseErrorCode, type Node as JsonNode, type ParseError } from 'jsonc-parser/lib/esm/main.js';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { ConfigShapeError, type AgentAdapter, type ConfigPlan, type McpRegistration, type McpShape } from './adapter.js';
import { AGENTS, findAgent } from './registry.js';
import { isObject } from '../ui/json.js';

export type McpScope = 'project' | 'user';

/** How an agent starts the server: a program and its arguments (never a shell line). */
export interface ServerCommand {
  command: string;
  args: string[];
}

export interface McpTarget {
  id: string;
  displayName: string;
  scopes: readonly McpScope[];
  defaultScope: McpScope;
  file(scope: McpScope, place: { cwd: string; env: NodeJS.ProcessEnv }): string;
  planInstall(file: string, text: string | undefined, server: ServerCommand): ConfigPlan;
  planUninstall(file: string, text: string | undefined): ConfigPlan;
  /** wmem's entry as the file holds it (undefined: not registered). Throws ConfigShapeError. */
  registered(file: string, text: string | undefined): ServerCommand | undefined;
}

export const SERVER_NAME = 'wmem';


function plan(file: string, before: string | undefined, after: string, removed?: number): ConfigPlan {
  const changed = after !== (before ?? '');
  return { file, before, after: changed ? after : (before ?? ''), changed, events: changed ? ['mcp'] : [], ...(removed !== undefined ? { removed } : {}), notes: [] };
}

// ---- JSON (Claude Code, Gemini CLI, OpenCode) -------------------------------------------------

function parseJsonObject(file: string, text: string): Record<string, unknown> {
  const errors: ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length) throw new ConfigShapeError(`${file} is not valid JSON (${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}); left untouched`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigShapeError(`${file} does not hold a JSON object; left untouched`);
  return value as Record<string, unknown>;
}

/** The file's indentation unit (two spaces when it shows none). */
function indentUnit(text: string): string {
  return /^([ \t]+)["}/]/m.exec(text)?.[1]?.replace(/^(\t|( +)).*$/, '$1') ?? '  ';
}

/** The whitespace a node's line starts with. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start, offset))![0];
}

function pretty(value: unknown, unit: string, indent: string): string {
  return JSON.stringify(value, null, unit).replace(/\n/g, '\n' + indent);
}

type Edit = { offset: number; length: number; content: string };
const apply = (text: string, e: Edit) => text.slice(0, e.offset) + e.content + text.slice(e.offset + e.length);

/** Sets `key` in the object node `obj` (at `depth`), touching no byte outside the new text. */
function setProperty(text: string, obj: JsonNode, key: string, value: unknown, depth: number): string {
  const unit = indentUnit(text);
  const props = obj.children ?? [];
  const existing = props.find((p) => p.children?.[0]?.value === key);
  if (existing) {
    const valueNode = existing.children![1]!;
    return apply(text, { offset: valueNode.offset, length: valueNode.length, content: pretty(value, unit, lineIndent(text, existing.offset)) });
  }
  const last = props[props.length - 1];
  if (last) {
    const indent = lineIndent(text, last.offset);
    return apply(text, { offset: last.offset + last.length, length: 0, content: `,\n${indent}${JSON.stringify(key)}: ${pretty(value, unit, indent)}` });
  }
  const outer = lineIndent(text, obj.offset);
  const indent = depth === 1 ? unit : outer + unit;
  return apply(text, { offset: obj.offset, length: obj.length, content: `{\n${indent}${JSON.stringify(key)}: ${pretty(value, unit, indent)}\n${depth === 1 ? '' : outer}}` });
}

/** Removes `key` from the object node `obj`: exactly the text setProperty would have added. */
function removeProperty(text: string, obj: JsonNode, key: string): string {
  const props = obj.children ?? [];
  const i = props.findIndex((p) => p.children?.[0]?.value === key);
  if (i < 0) return text;
  const prop = props[i]!;
  if (props.length === 1) return apply(text, { offset: obj.offset, length: obj.length, content: '{}' });
  if (i > 0) {
    const prev = props[i - 1]!;
    return apply(text, { offset: prev.offset + prev.length, length: prop.offset + prop.length - (prev.offset + prev.length), content: '' });
  }
  return apply(text, { offset: prop.offset, length: props[1]!.offset - prop.offset, content: '' });
}

/** A JSON planner for `<container>.wmem = entry(server)`. */
function jsonTarget(container: string, entry: (server: ServerCommand) => Record<string, unknown>, read: (value: Record<string, unknown>) => ServerCommand | undefined) {
  const holder = (file: string, text: string | undefined) => {
    const root = text?.trim() ? parseJsonObject(file, text) : {};
    const box = root[container];
    if (box !== undefined && !isObject(box)) throw new ConfigShapeError(`${file}: "${container}" is not an object; left untouched`);
    return box as Record<string, unknown> | undefined;
  };
  const tree = (text: string) => parseTree(text, [], { allowTrailingComma: true })!;
  const boxNode = (root: JsonNode) => root.children?.find((p) => p.children?.[0]?.value === container)?.children?.[1];
  return {
    planInstall(file: string, text: string | undefined, server: ServerCommand): ConfigPlan {
      const current = holder(file, text)?.[SERVER_NAME];
      const wanted = entry(server);
      if (JSON.stringify(current) === JSON.stringify(wanted)) return plan(file, text, text ?? '');
      const base = text?.trim() ? text : '{}\n';
      const root = tree(base);
      const box = boxNode(root);
      const after = box ? setProperty(base, box, SERVER_NAME, wanted, 2) : setProperty(base, root, container, { [SERVER_NAME]: wanted }, 1);
      return plan(file, text, after.endsWith('\n') ? after : after + '\n');
    },
    planUninstall(file: string, text: string | undefined): ConfigPlan {
      const held = holder(file, text);
      if (!held || !(SERVER_NAME in held)) return plan(file, text, text ?? '', 0);
      const root = tree(text!);
      // The container goes too when wmem was all it held (it was most likely wmem's to begin with).
      const after = Object.keys(held).length === 1 ? removeProperty(text!, root, container) : removeProperty(text!, boxNode(root)!, SERVER_NAME);
      return plan(file, text, after, 1);
    },
    registered(file: string, text: string | undefined): ServerCommand | undefined {
      const value = holder(file, text)?.[SERVER_NAME];
      return isObject(value) ? read(value) : undefined;
    },
  };
}

const readStdio = (value: Record<string, unknown>) => (typeof value.command === 'string' ? { command: value.command, args: Array.isArray(value.args) ? value.args.map(String) : [] } : undefined);

// ---- TOML (Codex) ----------------------------------------------------------------------------

function parseTomlFile(file: string, text: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (err) {
    throw new ConfigShapeError(`${file} is not valid TOML (${String((err as Error).message).split('\n')[0]}); left untouched`);
  }
}

/** The lines of the `[<table>.wmem]` table and its sub-tables: [start, end) line indexes, or undefined. */
function tableSpan(lines: string[], wanted: string): [number, number] | undefined {
  const header = (line: string) => /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line)?.[1]?.replace(/\s*\.\s*/g, '.').replace(/"([A-Za-z0-9_-]+)"/g, '$1');
  const ours = (name: string | undefined) => name === wanted || Boolean(name?.startsWith(wanted + '.'));
  const start = lines.findIndex((l) => ours(header(l)));
  if (start < 0) return undefined;
  let end = start + 1;
  while (end < lines.length && (header(lines[end]!) === undefined || ours(header(lines[end]!)))) end++;
  // Blank lines and comments just above the next table belong to it.
  while (end > start + 1 && /^\s*(#.*)?$/.test(lines[end - 1]!)) end--;
  return [start, end];
}

function withoutWmem(value: Record<string, unknown>, table: string): Record<string, unknown> {
  const servers = value[table];
  if (!isObject(servers) || !(SERVER_NAME in servers)) return value;
  const { [SERVER_NAME]: _ours, ...rest } = servers;
  const { [table]: _all, ...others } = value;
  return Object.keys(rest).length ? { ...others, [table]: rest } : others;
}

function tomlBlock(server: ServerCommand, table: string): string {
  return stringifyToml({ [table]: { [SERVER_NAME]: { command: server.command, args: server.args } } }).trim() + '\n';
}

/** `[<table>.wmem]` set to `server`, or removed when it is undefined. */
function planToml(file: string, text: string | undefined, server: ServerCommand | undefined, table: string): ConfigPlan {
  const ours = `${table}.${SERVER_NAME}`;
  const before = text ?? '';
  const parsed = parseTomlFile(file, before);
  const lines = before.split('\n');
  const span = tableSpan(lines, ours);
  const servers = parsed[table];
  const present = isObject(servers) && SERVER_NAME in servers;
  if (present && !span) throw new ConfigShapeError(`${file} defines ${ours} inline, which wmem does not edit; left untouched`, `replace it by a [${ours}] table, or edit it by hand`);
  if (server && present && JSON.stringify((servers as Record<string, unknown>)[SERVER_NAME]) === JSON.stringify({ command: server.command, args: server.args })) return plan(file, text, before);
  if (!server && !present) return plan(file, text, before, 0);
  let after: string;
  if (span) {
    const block = server ? tomlBlock(server, table).trimEnd().split('\n') : [];
    const kept = [...lines.slice(0, span[0]), ...block, ...lines.slice(span[1])];
    // Removing the table also removes the blank line that separated it from what came before.
    if (!server && span[0] > 0 && /^\s*$/.test(kept[span[0] - 1]!) && (span[0] === kept.length || /^\s*$/.test(kept[span[0]] ?? ''))) kept.splice(span[0] - 1, 1);
    after = kept.join('\n');
  } else {
    const sep = !before ? '' : before.endsWith('\n\n') ? '' : before.endsWith('\n') ? '\n' : '\n\n';
    after = before + sep + tomlBlock(server!, table);
  }
  // Proof that only wmem's table changed: everything else parses to the same values.
  const check = parseTomlFile(file, after);
  if (JSON.stringify(withoutWmem(check, table)) !== JSON.stringify(withoutWmem(parsed, table))) throw new ConfigShapeError(`${file}: wmem could not change [${ours}] without touching the rest; left untouched`, 'edit that table by hand');
  return plan(file, text, after, server ? undefined : 1);
}

// ---- The table of agents: each adapter's own `mcp` declaration --------------------------------

/** wmem's entry for a JSON shape, its keys in the shape's order. */
function jsonEntry(shape: Extract<McpShape, { format: 'json' }>) {
  return (server: ServerCommand) => ({
    ...shape.before,
    ...(shape.command === 'array' ? { command: [server.command, ...server.args] } : { command: server.command, args: server.args }),
    ...shape.after,
  });
}

function readJsonEntry(shape: Extract<McpShape, { format: 'json' }>) {
  if (shape.command === 'split') return readStdio;
  return (value: Record<string, unknown>) => (Array.isArray(value.command) && value.command.length ? { command: String(value.command[0]), args: value.command.slice(1).map(String) } : undefined);
}

function tomlPlanners(table: string): Pick<McpTarget, 'planInstall' | 'planUninstall' | 'registered'> {
  return {
    planInstall: (file, text, server) => planToml(file, text, server, table),
    planUninstall: (file, text) => planToml(file, text, undefined, table),
    registered(file, text) {
      const servers = parseTomlFile(file, text ?? '')[table];
      const value = isObject(servers) ? servers[SERVER_NAME] : undefined;
      return isObject(value) ? readStdio(value) : undefined;
    },
  };
}

/** The planner an adapter's MCP declaration means. */
export function mcpTargetOf(adapter: AgentAdapter & { mcp: McpRegistration }): McpTarget {
  const { mcp } = adapter;
  const planners = mcp.shape.format === 'toml' ? tomlPlanners(mcp.shape.table) : jsonTarget(mcp.shape.container, jsonEntry(mcp.shape), readJsonEntry(mcp.shape));
  return { id: adapter.id, displayName: adapter.displayName, scopes: mcp.scopes, defaultScope: mcp.defaultScope, file: mcp.file, ...planners };
}

export const MCP_TARGETS: readonly McpTarget[] = AGENTS.filter((a): a is AgentAdapter & { mcp: McpRegistration } => a.mcp !== undefined).map(mcpTargetOf);

/** The target an agent's id or alias names (the registry's aliases), or undefined. */
export function mcpTarget(name: string): McpTarget | undefined {
  const id = findAgent(name)?.id;
  return MCP_TARGETS.find((t) => t.id === id);
}
