// Pure: wmem's entries in a JSON hooks file of the shape Claude Code, Codex and Gemini CLI share,
// `hooks.<Event>[] = {matcher?, hooks: [{type: "command", command, timeout, …}]}`, as plans over
// the file's text. What differs per agent is data (HooksFileRules): the events and their timeouts
// in the agent's unit, the matcher of each, the handler's fields, the key that holds the events
// (or none), what to do with an event that is not a list, the notes an install prints. Merging
// keeps every other key and hook in place; wmem's entries are recognised by their command, so a
// second install changes nothing and uninstall removes only them.
import { ConfigShapeError, type ConfigPlan, type ConfigStatus, type InstallRequest, type Scope } from './adapter.js';
import { jsonBreak } from '../ui/errors.js';
import { isObject } from '../ui/json.js';

type Json = Record<string, unknown>;

/** One event wmem installs. */
export interface HookSpec {
  event: string;
  /** The tools it fires for (Claude Code); none: every time. */
  matcher?: string;
  /** In the agent's unit (seconds for Claude Code and Codex, milliseconds for Gemini CLI). */
  timeout: number;
}

export interface HooksFileRules {
  /** The agent's id, for what doctor tells the user to run (`wmem install <agent> --scope …`). */
  agent: string;
  hooks: readonly HookSpec[];
  /** Whether a handler's command is one wmem installed for this agent. */
  isWmem(command: unknown): boolean;
  /** wmem's handler for an event, its keys in the order the agent documents them. */
  handler(spec: HookSpec, prefix: string, tokensMax?: number): Json;
  /** The key that holds the events (default `hooks`); null: the file's own keys are the events. */
  outerKey?: string | null;
  /** An event whose value is not a list is left alone (Gemini CLI skips it) instead of refused. */
  keepNonLists?: boolean;
  /** What a malformed group is called in the refusal (`matcher group`); none: says which part is wrong. */
  groupNoun?: string;
  /** A file that does not parse is said to lose its comments if rewritten (Gemini CLI strips them). */
  explainComments?: boolean;
  /** What the user must know after an install into `file` (trust steps). */
  notes?(file: string): string[];
  /** Throws ConfigShapeError for a parsed file the agent would misread (Droid's outer `hooks`). */
  refuse?(file: string, json: Json): void;
}

/** A hooks value wmem cannot change safely; the planners name the file. */
export class HooksShapeError extends Error {
  override name = 'HooksShapeError';
}

/** The file's indentation, so a rewrite keeps its look. */
export function detectIndent(text: string): string | number {
  const match = /^[{[][^\n]*\n([ \t]+)\S/.exec(text);
  if (!match) return 2;
  return match[1]!.includes('\t') ? '\t' : match[1]!.length;
}

export function formatJson(json: Json, indent: string | number): string {
  return JSON.stringify(json, null, indent) + '\n';
}

/** The file as an object (`{}` when missing or blank); refused by name when it is not one. */
export function parseJsonFile(file: string, text: string | undefined, explainComments = false): { json: Json; indent: string | number } {
  if (text === undefined || !text.trim()) return { json: {}, indent: 2 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    const comments = explainComments && /^\s*\/\/|\/\*/m.test(text) ? ' (wmem does not rewrite a settings file with comments: it would lose them)' : '';
    throw new ConfigShapeError(`${file} is not valid JSON${comments} (${jsonBreak(err, text)}); left untouched`);
  }
  if (!isObject(parsed)) throw new ConfigShapeError(`${file} does not hold a JSON object; left untouched`);
  return { json: parsed, indent: detectIndent(text) };
}

const handlers = (group: Json): unknown[] => (Array.isArray(group.hooks) ? group.hooks : []);

/** The planner for one agent's hooks file. */
export function hooksFile(rules: HooksFileRules) {
  const outer = rules.outerKey === undefined ? 'hooks' : rules.outerKey;
  const label = (event: string) => (outer ? `${outer}.${event}` : event);
  const ours = (h: unknown) => isObject(h) && rules.isWmem(h.command);
  const eventsOf = (json: Json): Json => (outer === null ? json : isObject(json[outer]) ? json[outer] : {});
  const groupsOf = (events: Json, event: string): Json[] => (Array.isArray(events[event]) ? (events[event] as Json[]) : []);
  const withEvents = (json: Json, events: Json): Json => {
    if (outer === null) return events;
    const next = { ...json, [outer]: events };
    if (!Object.keys(events).length) delete next[outer];
    return next;
  };

  /** Throws HooksShapeError when the events are not the shape the agent reads. */
  function checkShape(json: Json): void {
    if (outer !== null && json[outer] === undefined) return;
    if (outer !== null && !isObject(json[outer])) throw new HooksShapeError(`"${outer}" is not an object`);
    for (const [event, groups] of Object.entries(eventsOf(json))) {
      if (!Array.isArray(groups)) {
        if (rules.keepNonLists) continue;
        throw new HooksShapeError(`"${label(event)}" is not a list`);
      }
      groups.forEach((group, i) => {
        const where = `"${label(event)}[${i}]"`;
        const bad = !isObject(group) ? 'object' : group.hooks !== undefined && !Array.isArray(group.hooks) ? 'list' : undefined;
        if (bad && rules.groupNoun) throw new HooksShapeError(`${where} is not a ${rules.groupNoun}`);
        if (bad === 'object') throw new HooksShapeError(`${where} is not an object`);
        if (bad === 'list') throw new HooksShapeError(`"${label(event)}[${i}].hooks" is not a list`);
      });
    }
  }

  /** A group list without wmem's handlers; groups left empty go. */
  function withoutWmem(groups: Json[]): Json[] {
    const out: Json[] = [];
    for (const group of groups) {
      const list = handlers(group);
      const kept = list.filter((h) => !ours(h));
      if (kept.length === list.length) out.push(group);
      else if (kept.length) out.push({ ...group, hooks: kept });
    }
    return out;
  }

  /** Adds (or updates) wmem's hooks; an entry already exactly as wanted stays where it is. */
  function merge(json: Json, prefix: string, tokensMax?: number): { json: Json; changed: boolean; events: string[] } {
    checkShape(json);
    const events = { ...eventsOf(json) };
    const touched: string[] = [];
    for (const spec of rules.hooks) {
      const wanted: Json = { ...(spec.matcher ? { matcher: spec.matcher } : {}), hooks: [rules.handler(spec, prefix, tokensMax)] };
      const groups = groupsOf(events, spec.event);
      const mine = groups.filter((g) => handlers(g).some(ours));
      if (mine.length === 1 && JSON.stringify(mine[0]) === JSON.stringify(wanted)) continue;
      events[spec.event] = [...withoutWmem(groups), wanted];
      touched.push(spec.event);
    }
    return touched.length ? { json: withEvents(json, events), changed: true, events: touched } : { json, changed: false, events: touched };
  }

  /** Removes only wmem's hooks; an event left without hooks goes, and the outer key too when empty. */
  function remove(json: Json): { json: Json; changed: boolean; removed: number } {
    checkShape(json);
    const events: Json = {};
    let removed = 0;
    const count = (groups: Json[]) => groups.reduce((n, g) => n + handlers(g).length, 0);
    for (const [event, value] of Object.entries(eventsOf(json))) {
      if (!Array.isArray(value)) {
        events[event] = value;
        continue;
      }
      const kept = withoutWmem(value as Json[]);
      const gone = count(value as Json[]) - count(kept);
      removed += gone;
      if (gone === 0) events[event] = value;
      else if (kept.length) events[event] = kept;
    }
    return removed ? { json: withEvents(json, events), changed: true, removed } : { json, changed: false, removed: 0 };
  }

  /** Which of wmem's events the file has: the command, handler, and where it sits. */
  function installed(json: Json): { event: string; installed: boolean; command?: string; handler?: Json; group?: number; index?: number }[] {
    const events = eventsOf(json);
    return rules.hooks.map(({ event }) => {
      for (const [g, group] of groupsOf(events, event).entries()) {
        const list = isObject(group) ? handlers(group) : [];
        const h = list.findIndex(ours);
        if (h !== -1) return { event, installed: true, command: String((list[h] as Json).command), handler: list[h] as Json, group: g, index: h };
      }
      return { event, installed: false };
    });
  }

  /** Runs a change, a hooks shape problem refused like a parse error (naming the file). */
  function shaped<T>(file: string, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof HooksShapeError) throw new ConfigShapeError(`${file}: ${err.message}; left untouched`);
      throw err;
    }
  }

  /** The parsed file; `check`: its hooks shape too (refused by name). */
  function parse(file: string, text: string | undefined, check = true): { json: Json; indent: string | number } {
    const parsed = parseJsonFile(file, text, rules.explainComments);
    rules.refuse?.(file, parsed.json);
    if (check) shaped(file, () => checkShape(parsed.json));
    return parsed;
  }

  /**
   * wmem's state in the file, for doctor (never throws: a file it cannot read is its `error`):
   * the events there and those missing, the command they run, and the problems: some missing
   * (install again), then the agent's own (`more`, asked when any is there: hooks turned off,
   * trust). `shape`: a hooks value of the wrong shape is an error (else it reads as missing).
   */
  function diagnose(scope: Scope, file: string, text: string | undefined, more?: (json: Json) => string[], shape = true): ConfigStatus {
    let json: Json;
    try {
      json = parse(file, text, shape).json;
    } catch (err) {
      return { scope, file, exists: true, error: (err as Error).message, installed: [], missing: rules.hooks.map((h) => h.event), problems: [] };
    }
    const found = installed(json);
    const present = found.filter((f) => f.installed).map((f) => f.event);
    const missing = found.filter((f) => !f.installed).map((f) => f.event);
    const problems = present.length && missing.length ? [`${file} lacks ${missing.join(', ')}: run 'wmem install ${rules.agent} --scope ${scope}'`] : [];
    if (present.length && more) problems.push(...more(json));
    return { scope, file, exists: text !== undefined, installed: present, missing, command: found.find((f) => f.command)?.command, problems };
  }

  function planInstall(file: string, text: string | undefined, request: InstallRequest): ConfigPlan {
    const { json, indent } = parse(file, text);
    const merged = merge(json, request.command, request.tokensMax);
    const after = merged.changed || text === undefined || !text.trim() ? formatJson(merged.json, indent) : text;
    return { file, before: text, after, changed: after !== text, events: merged.events, notes: rules.notes?.(file) ?? [], preview: merged.json };
  }

  function planUninstall(file: string, text: string | undefined): ConfigPlan {
    const { json, indent } = parse(file, text);
    const { json: next, changed, removed } = remove(json);
    if (!changed || text === undefined) return { file, before: text, after: text ?? '', changed: false, events: [], removed: 0, notes: [], preview: json };
    return { file, before: text, after: formatJson(next, indent), changed: true, events: [], removed, notes: [], preview: next };
  }

  return { merge, remove, installed, parse, planInstall, planUninstall, diagnose };
}
