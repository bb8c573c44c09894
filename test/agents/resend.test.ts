// Memory that changed reaches a resumed session, with each real client (pinned) against its
// loopback mock (SPEC §14): run 1, then `wmem note` from outside (another terminal), then resumed
// runs. The resumed run's first model request holds the note once; a later run whose memory did
// not change adds no copy of anything. Then one run per agent with WMEM_DISABLED=1: no wmem text
// reaches the model and nothing is written under the wmem home.
import { afterAll, describe, expect, inject, it } from 'vitest';
import { existsSync } from 'node:fs';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { World } from './helpers/claude-world.js';
import { CodexWorld } from './helpers/codex-world.js';
import { GeminiWorld } from './helpers/gemini-world.js';
import { OpenCodeWorld } from './helpers/opencode-world.js';
import { allText as claudeText } from './helpers/requests.js';
import { conversationRequests, countOf } from './helpers/requests.js';
import { allText as codexText } from './helpers/responses-mock.js';
import { allText as geminiText, unescaped } from './helpers/gemini-mock.js';
import { chatText } from './helpers/openai-chat-mock.js';
import { cacheRoot } from './helpers/install-claude.js';

const observed: Record<string, unknown> = {};

/** One agent, driven the same way: a run (new or resumed) gives the text of its first model request. */
interface Driver {
  wmemHome: string;
  run(prompt: string, options: { resume: boolean; env?: Record<string, string> }): Promise<string>;
  wmem(args: string[]): Promise<{ exitCode?: number; stderr: unknown }>;
  cleanup(): Promise<void>;
}

function firstOf<T>(requests: T[], what: string, detail: string): T {
  if (!requests.length) throw new Error(`the run sent no ${what} request: ${detail.slice(0, 1500)}`);
  return requests[0];
}

const AGENTS: Record<string, () => Promise<Driver>> = {
  'Claude Code': async () => {
    const world = await World.create(inject('claudeBin'));
    let session: string | undefined;
    return {
      wmemHome: world.wmemHome,
      async run(prompt, { resume, env }) {
        const run = await world.claude(prompt, { resume: resume ? session : undefined, env });
        session ??= run.sessionId;
        return claudeText(firstOf(conversationRequests(run.requests), 'conversation', run.stderr));
      },
      wmem: (args) => world.wmem(args),
      cleanup: () => world.cleanup(),
    };
  },
  'Codex CLI': async () => {
    const world = await CodexWorld.create(inject('codexBin'));
    await world.installWmem();
    let thread: string | undefined;
    return {
      wmemHome: world.wmemHome,
      async run(prompt, { resume, env }) {
        const run = await world.codex(prompt, { resume: resume ? thread : undefined, env });
        thread ??= run.threadId;
        return codexText(firstOf(run.requests.filter((r) => r.path.endsWith('/responses')), 'responses', run.stderr));
      },
      wmem: (args) => world.wmem(args),
      cleanup: () => world.cleanup(),
    };
  },
  'Gemini CLI': async () => {
    const world = await GeminiWorld.create(inject('geminiEntry'));
    await world.installWmem();
    return {
      wmemHome: world.wmemHome,
      async run(prompt, { resume, env }) {
        const run = await world.gemini(prompt, { resume, env });
        expect(run.exitCode, run.stderr.slice(-1500)).toBe(0);
        // Gemini sends hook text HTML-escaped: compare it as the hook wrote it.
        return unescaped(geminiText(firstOf(run.requests.filter((r) => r.kind === 'stream'), 'main-turn', run.stderr)));
      },
      wmem: (args) => world.wmem(args),
      cleanup: () => world.cleanup(),
    };
  },
  OpenCode: async () => {
    const world = await OpenCodeWorld.create(inject('opencodeBin'));
    await world.installWmem();
    return {
      wmemHome: world.wmemHome,
      async run(prompt, { resume, env }) {
        const run = await world.opencode(prompt, { continue: resume, env, timeout: 600_000 });
        expect(run.exitCode, run.stderr.slice(-1500)).toBe(0);
        // The conversation's request is the one that carries the prompt (the title request aside).
        const texts = run.requests.map(chatText);
        return firstOf(texts.filter((t) => t.includes(prompt) && !/generate a (short )?title/i.test(t)), 'chat', run.stderr);
      },
      wmem: (args) => world.wmem(args),
      cleanup: () => world.cleanup(),
    };
  },
};

async function withDriver<T>(name: string, fn: (driver: Driver) => Promise<T>): Promise<T> {
  const driver = await AGENTS[name]!();
  try {
    const value = await fn(driver);
    // A hook never fails the client: anything that went wrong inside one is only in wmem's log.
    const log = await readFile(path.join(driver.wmemHome, 'logs', 'hooks.log'), 'utf8').catch(() => '');
    const errors = log.split('\n').filter((l) => / error: /.test(l));
    expect(errors, errors.join('\n')).toEqual([]);
    return value;
  } finally {
    await driver.cleanup();
  }
}

const NOTE = 'The staging database moved to db-7 (told from another terminal)';
/** What one request holds of wmem's memory: copies of the overview, of the note, of a resent part. */
const tally = (text: string) => ({
  overview: countOf(text, '<working_memory>'),
  note: countOf(text, NOTE),
  resent: countOf(text, 'your working memory changed since the copy given earlier'),
});

describe.each(Object.keys(AGENTS))('%s: memory that changed reaches the resumed session, once', (name) => {
  it('a note from outside reaches the resumed run once; a further run with unchanged memory adds nothing', () =>
    withDriver(name, async (agent) => {
      const first = await agent.run('Start on the task: make the parser accept empty input.', { resume: false });
      expect(tally(first)).toMatchObject({ overview: 1, note: 0 });

      const noted = await agent.wmem(['note', NOTE]);
      expect(noted.exitCode, String(noted.stderr)).toBe(0);

      const second = await agent.run('Go on with the next step.', { resume: true });
      const third = await agent.run('And the step after.', { resume: true });
      const fourth = await agent.run('Once more.', { resume: true });
      const tallies = [first, second, third, fourth].map(tally);
      const resentPart = second.slice(second.lastIndexOf('[wmem: your working memory changed'));
      observed[name] = { tallies, resentInSecond: resentPart.slice(0, 1200) };
      // The resumed run's first request holds the note once; where the agent keeps every text,
      // it came as the block that changed, not as a second copy of the overview.
      expect(tallies[1].note).toBe(1);
      expect(tallies[1].overview).toBe(1);
      // Between the third and the fourth run nothing changed: the fourth adds no copy of anything.
      expect(tallies[3]).toEqual(tallies[2]);
    }), 1_800_000);

  it('WMEM_DISABLED=1: no wmem text reaches the model and nothing is written under the wmem home', () =>
    withDriver(name, async (agent) => {
      const before = existsSync(agent.wmemHome) ? (await readdir(agent.wmemHome)).sort() : [];
      const text = await agent.run('Start on the task: make the parser accept empty input.', { resume: false, env: { WMEM_DISABLED: '1' } });
      for (const tag of ['<working_memory>', '<context_meta>', '<scratch_notes>', '<session_state>', '[wmem:']) expect(text).not.toContain(tag);
      const after = existsSync(agent.wmemHome) ? (await readdir(agent.wmemHome)).sort() : [];
      expect(after).toEqual(before);
      expect(after).not.toContain('sessions');
    }), 900_000);
});

afterAll(async () => {
  process.stderr.write(`[resend] ${JSON.stringify(observed)}\n`);
  await writeFile(path.join(cacheRoot(), 'last-resend-report.json'), JSON.stringify(observed, null, 2) + '\n').catch(() => {});
});
