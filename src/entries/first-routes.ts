// What src/entries/build-first-hook.mjs asks before it builds the hook's first stages, from a
// build of this module (it runs at build time only, so none of it is in a first stage): which
// agents have events the first stage serves, and bin/wmem.js's table, dist/fast/first-routes.json
// (which file serves each agent's event, and how to read a hook's command line).
import { EVENT_NAME_SEPARATORS, eventKey } from '../agents/adapter.js';
import { AGENT_NAMES, DEFAULT_AGENT } from '../agents/lookup.js';
import { GLOBAL_OPTIONS, parseFlags } from '../options.js';
import { SERVED_MOMENTS, type FirstStageKind } from './first-hook.js';
import { HOOK } from './lean-commands.js';

/** One agent's first stages: its names on the command line, and each event served (its eventKey) → the kind of build. */
export interface FirstStageAgent {
  id: string;
  isDefault: boolean;
  names: string[];
  events: Record<string, FirstStageKind>;
}

/**
 * What the build makes of every agent lookup.ts lists (those with an event served here): its
 * pair of first stages and bin/wmem.js's routes to them (dist/fast/first-routes.json). A new
 * agent's events are routed as soon as lookup.ts lists it.
 */
export async function firstStageRoutes(): Promise<FirstStageAgent[]> {
  const agents: FirstStageAgent[] = [];
  for (const names of AGENT_NAMES) {
    const events: FirstStageAgent['events'] = {};
    for (const event of (await names.hook()).events) {
      const kind = SERVED_MOMENTS[event.moment];
      if (kind) events[eventKey(event.name)] = kind;
    }
    if (Object.keys(events).length) agents.push({ id: names.id, isDefault: names.id === DEFAULT_AGENT, names: [names.id, ...names.aliases], events });
  }
  return agents;
}

/**
 * How bin/wmem.js reads a hook's command line, in dist/fast/first-routes.json beside the routes
 * (the build writes both): so that it takes the words as this stage's parser (lean-line.ts) and
 * the agents' eventFor take them, not from a copy of their rules.
 */
export interface HookLineRules {
  /** The agent of a hook without --agent. */
  defaultAgent: string;
  /** eventKey's separators (agents/adapter.ts): bin keys an event's word as eventKey does. */
  separators: string;
  /** Every option `wmem hook` takes (`--agent`, `-q`), and whether it takes a value. */
  options: Record<string, boolean>;
}

export function hookLineRules(): HookLineRules {
  const options: Record<string, boolean> = {};
  for (const spec of [...GLOBAL_OPTIONS, ...HOOK.options!]) {
    const { long, short, takesValue } = parseFlags(spec);
    options[`--${long}`] = takesValue;
    if (short) options[`-${short}`] = takesValue;
  }
  return { defaultAgent: DEFAULT_AGENT, separators: EVENT_NAME_SEPARATORS, options };
}
