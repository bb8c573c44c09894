// wmem:opencode-plugin v2 (written by `wmem install opencode`; `wmem uninstall opencode` removes it)
// This file is wmem's: a reinstall rewrites it. Keep your own plugins in other files.
//
// Gives OpenCode wmem's working memory (SPEC §10.4): each hook hands its input, as JSON on stdin,
// to `wmem hook --agent opencode EVENT` and uses what it prints. The memory part goes into the
// system prompt, with the same bytes while memory is unchanged (so the prompt cache survives);
// the meter goes into the user's turn; tool calls are tracked; before OpenCode compacts, the
// session's messages are archived and memory is put into the summarizer's context; on idle the
// session is consolidated. Nothing here ever throws into OpenCode: failures go to the log below.
// (Kilo Code, an OpenCode fork with the same plugin API, runs this same file with AGENT "kilo":
// it does not contain a plugin's throw either, so every hook below is guarded.)
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

const WMEM = __WMEM_COMMAND__;
const AGENT = __WMEM_AGENT__;
const TAIL = __WMEM_TAIL__;
const LOG = __WMEM_LOG__;
const TIMEOUT_MS = 30_000;

type Any = any;

function log(what: string, err: unknown): void {
  try {
    mkdirSync(dirname(LOG), { recursive: true, mode: 0o700 });
    const message = err instanceof Error ? err.message : String(err);
    appendFileSync(LOG, `${new Date().toISOString()} ${what}: ${message.replace(/\s+/g, ' ').slice(0, 500)}\n`, { mode: 0o600 });
  } catch {
    /* nowhere left to say it */
  }
}

function commandFor(event: string): string[] {
  return ['/bin/sh', '-c', `${WMEM} hook --agent ${AGENT} ${event}${TAIL}`];
}

function parsed(stdout: string): Any {
  const text = stdout.trim();
  return text ? JSON.parse(text) : undefined;
}

/** Runs the hook and gives back what it printed (parsed), or undefined. */
function run(event: string, input: Any): Promise<Any> {
  return new Promise((resolve) => {
    try {
      const [cmd, ...args] = commandFor(event);
      const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'ignore'] });
      let out = '';
      const timer = setTimeout(() => child.kill(), TIMEOUT_MS);
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      child.on('error', (err) => {
        clearTimeout(timer);
        log(event, err);
        resolve(undefined);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        // wmem's hook exits 0 whatever happens inside it: anything else means it did not run.
        if (code !== 0) log(event, `the hook command exited ${code} (${WMEM})`);
        try {
          resolve(parsed(out));
        } catch (err) {
          log(event, err);
          resolve(undefined);
        }
      });
      child.stdin.on('error', () => {});
      child.stdin.end(JSON.stringify({ event, ...input }));
    } catch (err) {
      log(event, err);
      resolve(undefined);
    }
  });
}

/** The same, finished before it returns: OpenCode exits right after session.idle. */
function runNow(event: string, input: Any): void {
  try {
    const [cmd, ...args] = commandFor(event);
    const result = spawnSync(cmd, args, { input: JSON.stringify({ event, ...input }), stdio: ['pipe', 'ignore', 'ignore'], timeout: TIMEOUT_MS });
    if (result.error) log(event, result.error);
    else if (result.status !== 0) log(event, `the hook command exited ${result.status} (${WMEM})`);
  } catch (err) {
    log(event, err);
  }
}

interface SessionCache {
  /** The memory part as wmem last gave it: pushed as is while memory is unchanged. */
  memory?: string;
  stale: boolean;
  /** The meter for the current turn, added to the user's latest message. */
  meta?: string;
  /** What OpenCode said of each message (tokens), from the SDK client and message events. */
  infos: Map<string, Any>;
  model?: Any;
  /** The parent session of a subagent's session (OpenCode's task tool), null for a main one. */
  parent?: string | null;
}

const sessions = new Map<string, SessionCache>();

function cacheOf(sessionID: string): SessionCache {
  let cache = sessions.get(sessionID);
  if (!cache) sessions.set(sessionID, (cache = { stale: true, infos: new Map() }));
  return cache;
}

function modelOf(model: Any): Any {
  if (!model || typeof model !== 'object') return undefined;
  return { providerID: model.providerID, modelID: model.modelID ?? model.id, limit: model.limit };
}

function infosOf(cache: SessionCache): Any[] {
  return [...cache.infos.values()].sort((a, b) => (a.time?.created ?? 0) - (b.time?.created ?? 0)).map((info) => ({ info }));
}

/** Tool calls that may have changed memory: an edit of a memory file, a shell command running wmem. */
function touchesMemory(tool: string, args: Any): boolean {
  const text = JSON.stringify(args ?? {});
  if (tool === 'bash') return /\bwmem\b/.test(text);
  return /working-memory/.test(text) && /^(edit|write|patch|multiedit|apply_patch)$/.test(tool);
}

/** WMEM_DISABLED=1 in OpenCode's environment: the plugin does nothing at all (no hook is run). */
function disabled(): boolean {
  const value = (process.env.WMEM_DISABLED ?? '').trim().toLowerCase();
  return value !== '' && !['0', 'false', 'no', 'off'].includes(value);
}

export const WmemPlugin = async (ctx: Any) => {
  if (disabled()) return {};
  const directory: string = ctx?.directory ?? process.cwd();
  const client = ctx?.client;

  async function messages(sessionID: string): Promise<Any[]> {
    try {
      const result = await client.session.messages({ path: { id: sessionID } });
      return Array.isArray(result?.data) ? result.data : [];
    } catch (err) {
      log('messages', err);
      return [];
    }
  }

  /**
   * A subagent's session (a child of another) never becomes a wmem session of its own nor gets
   * memory; its tool calls count for its parent. Asked once per session.
   */
  async function parentOf(sessionID: string): Promise<string | undefined> {
    const cache = cacheOf(sessionID);
    if (cache.parent === undefined) {
      try {
        const result = await client.session.get({ path: { id: sessionID } });
        cache.parent = typeof result?.data?.parentID === 'string' && result.data.parentID ? result.data.parentID : null;
      } catch (err) {
        log('session', err);
        cache.parent = null;
      }
    }
    return cache.parent ?? undefined;
  }

  /** The model's limit from OpenCode's provider list, when the plugin has not seen the model yet. */
  async function withLimit(model: Any): Promise<Any> {
    if (!model?.modelID || model.limit) return model;
    try {
      const result = await client.config.providers();
      const provider = (result?.data?.providers ?? []).find((p: Any) => p?.id === model.providerID);
      const limit = provider?.models?.[model.modelID]?.limit;
      return limit ? { ...model, limit } : model;
    } catch (err) {
      log('providers', err);
      return model;
    }
  }

  async function memory(sessionID: string, cache: SessionCache): Promise<string | undefined> {
    if (cache.stale || cache.memory === undefined) {
      const answer = await run('system.transform', { sessionID, directory, model: cache.model });
      if (typeof answer?.context === 'string') cache.memory = answer.context;
      cache.stale = false;
    }
    return cache.memory;
  }

  const guard =
    <A extends unknown[]>(what: string, fn: (...a: A) => Promise<void>) =>
    async (...a: A): Promise<void> => {
      try {
        await fn(...a);
      } catch (err) {
        log(what, err);
      }
    };

  return {
    'experimental.chat.system.transform': guard('system.transform', async (input: Any, output: Any) => {
      if (!input?.sessionID || (await parentOf(input.sessionID))) return;
      const cache = cacheOf(input.sessionID);
      cache.model = modelOf(input.model) ?? cache.model;
      const text = await memory(input.sessionID, cache);
      if (text) output.system.push(text);
    }),

    'chat.message': guard('chat.message', async (input: Any) => {
      if (await parentOf(input.sessionID)) return;
      const cache = cacheOf(input.sessionID);
      const named = modelOf(input.model);
      if (named && (named.modelID !== cache.model?.modelID || named.providerID !== cache.model?.providerID)) cache.model = await withLimit(named);
      for (const m of await messages(input.sessionID)) if (m?.info?.id) cache.infos.set(m.info.id, m.info);
      await memory(input.sessionID, cache);
      const answer = await run('chat.message', { sessionID: input.sessionID, directory, model: cache.model, messages: infosOf(cache) });
      cache.meta = typeof answer?.context === 'string' ? answer.context : undefined;
      // Memory changed since the copy this plugin holds (a note from another terminal, a pull of
      // the team's memory): the new part replaces it in the system prompt from this turn on.
      if (typeof answer?.memory === 'string') cache.memory = answer.memory;
    }),

    'experimental.chat.messages.transform': guard('messages.transform', async (_input: Any, output: Any) => {
      const list: Any[] = output?.messages ?? [];
      const last = [...list].reverse().find((m) => m?.info?.role === 'user');
      const cache = last ? sessions.get(last.info.sessionID) : undefined;
      if (!last || !cache?.meta) return;
      const id = `${last.parts?.[0]?.id ?? 'prt'}-wmem`;
      if (last.parts.some((p: Any) => p?.id === id)) return;
      last.parts.push({ id, sessionID: last.info.sessionID, messageID: last.info.id, type: 'text', text: cache.meta, synthetic: true });
    }),

    'tool.execute.after': guard('tool.execute.after', async (input: Any, output: Any) => {
      const tool = { tool: input.tool, callID: input.callID, args: input.args, title: output?.title, output: output?.output, metadata: output?.metadata };
      const parentID = await parentOf(input.sessionID);
      await run('tool.execute.after', { sessionID: input.sessionID, directory, tool, ...(parentID ? { parentID } : {}) });
      if (touchesMemory(String(input.tool), input.args)) cacheOf(input.sessionID).stale = true;
    }),

    'experimental.session.compacting': guard('session.compacting', async (input: Any, output: Any) => {
      if (await parentOf(input.sessionID)) return;
      const cache = cacheOf(input.sessionID);
      await run('session.compacting', { sessionID: input.sessionID, directory, messages: await messages(input.sessionID) });
      cache.stale = true;
      const text = await memory(input.sessionID, cache);
      if (text) output.context.push(text);
    }),

    event: guard('event', async ({ event }: Any) => {
      const type = event?.type;
      const props = event?.properties ?? {};
      if (type === 'message.updated' && props.info?.id && props.info.sessionID) {
        cacheOf(props.info.sessionID).infos.set(props.info.id, props.info);
      } else if ((type === 'session.compacted' || type === 'session.idle') && props.sessionID && (await parentOf(props.sessionID))) {
        // A subagent's session: nothing of its own to keep.
      } else if (type === 'session.compacted' && props.sessionID) {
        const cache = cacheOf(props.sessionID);
        cache.stale = true;
        runNow('session.compacted', { sessionID: props.sessionID, directory, messages: await messages(props.sessionID) });
      } else if (type === 'session.idle' && props.sessionID) {
        const cache = cacheOf(props.sessionID);
        runNow('session.idle', { sessionID: props.sessionID, directory, model: cache.model, messages: infosOf(cache) });
      } else if (type === 'session.deleted' && props.info?.id) {
        runNow('session.deleted', { sessionID: props.info.id, directory });
        sessions.delete(props.info.id);
      }
    }),
  };
};
