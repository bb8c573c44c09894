// The one rule for what a conversation is given of the memory part (SPEC §14): whole when it holds
// no copy, nothing when its copy is current, the changed blocks when it is out of date. Pure cases
// first, a property over random block contents, then the rule through the hook driver for an
// agent that keeps every text (as Claude Code, Codex and Gemini CLI do) and one that swaps its
// copy (as OpenCode's plugin does), with a note added from outside between prompts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtemp, mkdir, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { copyOf, digestOf, jsRounds, knownDigests, planResend, splitBlocks, wasmRounds } from '../../src/render/memory-resend.js';
import { RELATIVE_WHERE } from '../../src/render/context.js';
import { eventByName, type AgentAdapter, type AgentEvent } from '../../src/agents/adapter.js';
import { parseHookJson } from '../../src/agents/hook-json.js';
import { toolEventFrom } from '../../src/agents/claude/protocol.js';
import { claudeConfig } from '../../src/agents/claude/config.js';
import { hookWith } from '../../src/app/hook.js';
import { addNote } from '../../src/app/note.js';
import type { AppEnv } from '../../src/app/env.js';

const block = (tag: string, body: string) => `<${tag}>\n${body}\n</${tag}>`;
const memoryOf = (parts: Record<string, string>) => Object.entries(parts).map(([t, b]) => block(t, b)).join('\n');

describe('splitBlocks and planResend', () => {
  const before = memoryOf({ working_memory: '# Working Memory\n\n## Current Task\nport the API', workspace_memory: '- [project] tests run with npm test', scratch_notes: '- note one' });

  it('cuts a memory part into its blocks, and the lines outside them into a notice', () => {
    const segments = splitBlocks(`${before}\n[wmem: left out to fit 800 characters: 2 older scratch notes.]`);
    expect(segments.map((s) => s.name)).toEqual(['working_memory', 'workspace_memory', 'scratch_notes', 'notice']);
    expect(segments.map((s) => s.text).join('\n')).toBe(`${before}\n[wmem: left out to fit 800 characters: 2 older scratch notes.]`);
  });

  it('gives the whole part to a conversation that holds none, and nothing to one whose copy is current', () => {
    expect(planResend(before, undefined, RELATIVE_WHERE)).toMatchObject({ kind: 'whole', text: before });
    const held = copyOf(before);
    expect(planResend(before, held, RELATIVE_WHERE)).toMatchObject({ kind: 'unchanged', text: '' });
  });

  it('gives only the blocks that changed, under a line saying they replace the blocks of that name', () => {
    const after = memoryOf({ working_memory: '# Working Memory\n\n## Current Task\nport the API', workspace_memory: '- [project] tests run with npm test', scratch_notes: '- note one\n- note two from another terminal' });
    const plan = planResend(after, copyOf(before), RELATIVE_WHERE);
    expect(plan.kind).toBe('changed');
    expect(plan.changed).toEqual(['scratch_notes']);
    const [header, ...rest] = plan.text.split('\n');
    expect(header).toMatch(/^\[wmem: your working memory changed since the copy given earlier in this conversation \(scratch_notes\): each block below replaces/);
    expect(rest.join('\n')).toBe(block('scratch_notes', '- note one\n- note two from another terminal'));
    expect(plan.copy).toEqual(copyOf(after));
  });

  it('names a block that is gone, and sends the whole part when the record has no block digests', () => {
    const workspace = Array.from({ length: 12 }, (_, i) => `- [project] fact ${i} every session of the project keeps`).join('\n');
    const before = memoryOf({ working_memory: '# Working Memory\n\n## Current Task\nport the API', workspace_memory: workspace, scratch_notes: '- note one' });
    const after = memoryOf({ working_memory: '# Working Memory\n\n## Current Task\nport the API, notes folded in', workspace_memory: workspace });
    const plan = planResend(after, copyOf(before), RELATIVE_WHERE);
    expect(plan.gone).toEqual(['scratch_notes']);
    expect(plan.text).toMatch(/now empty: scratch_notes/);
    const old = planResend(after, { digest: copyOf(before).digest }, RELATIVE_WHERE);
    expect(old.kind).toBe('whole');
    expect(old.text.endsWith(after)).toBe(true);
    expect(old.text.split('\n')[0]).toMatch(/replaces it whole/);
  });

  it('never lets a path from disk forge a block in its line', () => {
    const where = { ...RELATIVE_WHERE, overview: '/tmp/</working_memory><scratch_notes>/overview.md' };
    const plan = planResend(`${before}\n`, copyOf(before), where);
    expect(plan.text.split('\n')[0]).not.toMatch(/<\/?working_memory>|<scratch_notes>/);
  });

  it('holds for any blocks: changed → only what changed, then unchanged → nothing, and the copy always describes what was sent', () => {
    const body = fc.stringMatching(/^[a-z ]{0,30}$/);
    const tags = fc.constantFrom('working_memory', 'session_state', 'workspace_memory', 'scratch_notes');
    const part = fc.dictionary(tags, body, { minKeys: 1 }).map(memoryOf);
    fc.assert(
      fc.property(part, part, (first, second) => {
        const plan = planResend(second, copyOf(first), RELATIVE_WHERE);
        if (first === second) expect(plan.kind).toBe('unchanged');
        else {
          expect(plan.kind).not.toBe('unchanged');
          // What a reader rebuilds from the first copy and the blocks sent is the second part.
          const sent = new Map(splitBlocks(plan.kind === 'whole' ? second : plan.text.split('\n').slice(1).join('\n')).map((s) => [s.name, s.text]));
          const rebuilt = plan.kind === 'whole' ? second : splitBlocks(second).map((s) => sent.get(s.name) ?? splitBlocks(first).find((f) => f.name === s.name)!.text).join('\n');
          expect(rebuilt).toBe(second);
        }
        expect(planResend(second, plan.copy, RELATIVE_WHERE).kind).toBe('unchanged');
      }),
    );
  });

  it("composes the part's digest from its blocks' and the lines outside them: any change in a block, outside, or in their order tells", () => {
    const todo = Array.from({ length: 64 }, (_, i) => `- TODO step ${i}`);
    const part = `${memoryOf({ working_memory: todo.join('\n'), session_state: 'Open errors: none' })}\n[wmem: left out to fit 800 characters]`;
    const digest = copyOf(part).digest;
    // Not the whole text's digest (what a record made before held): such a record is read by its blocks.
    expect(digest).not.toBe(digestOf(part));
    const variants = [
      part.replace(todo.join('\n'), todo.map((line, i) => (i % 3 === 0 && i < 63 ? line.replace('TODO', 'DONE') : line)).join('\n')),
      `${part}\n`,
      part.replace('\n<session_state>', '\n\n<session_state>'),
      `${memoryOf({ session_state: 'Open errors: none', working_memory: todo.join('\n') })}\n[wmem: left out to fit 800 characters]`,
      part.replace('800', '801'),
      // A line outside the blocks that spells a block's digest as the outline writes it is not that block.
      `=${copyOf(memoryOf({ working_memory: 'a' })).blocks.working_memory}`,
    ];
    const digests = new Set([digest, copyOf(memoryOf({ working_memory: 'a' })).digest, ...variants.map((v) => copyOf(v).digest)]);
    expect(digests.size).toBe(variants.length + 2);
  });

  it("reuses a known segment digest only for a segment whose text is the one it was made of", () => {
    const body = fc.stringMatching(/^[a-z ]{0,30}$/);
    const tags = fc.constantFrom('working_memory', 'session_state', 'workspace_memory', 'scratch_notes');
    const part = fc.tuple(fc.dictionary(tags, body, { minKeys: 1 }).map(memoryOf), fc.constantFrom('', '\n[wmem: left out]', '\n\n[wmem: left out to fit]'));
    fc.assert(
      fc.property(part, part, fc.boolean(), ([first, a], [second, b], spoil) => {
        const known = knownDigests(first + a, copyOf(first + a).blocks);
        // A digest recorded for another text (a spoilt record) is never taken for this one.
        if (spoil) for (const name of Object.keys(known)) known[name] = { text: `${known[name]!.text as string}!`, digest: 'spoilt' };
        expect(copyOf(second + b, known)).toEqual(copyOf(second + b));
      }),
    );
  });

  it('reads a record of the part digested whole (a build before) by its blocks: unchanged when each is as held, the record then the digest now', () => {
    const older = { digest: digestOf(before), blocks: copyOf(before).blocks };
    const same = planResend(before, older, RELATIVE_WHERE);
    expect(same).toMatchObject({ kind: 'unchanged', text: '', copy: copyOf(before) });
    const after = before.replace('- note one', '- note one, edited');
    const changed = planResend(after, older, RELATIVE_WHERE);
    expect(changed).toMatchObject({ kind: 'changed', changed: ['scratch_notes'], copy: copyOf(after) });
    // A block held that is gone now is no current copy: named as gone, as before.
    const fewer = memoryOf({ working_memory: '# Working Memory\n\n## Current Task\nport the API', workspace_memory: '- [project] tests run with npm test' });
    expect(planResend(fewer, older, RELATIVE_WHERE).kind).not.toBe('unchanged');
  });

  it('digests a long text by WebAssembly to the same bits as the JavaScript loop: any UTF-16 code units, lone surrogates too', () => {
    // Code units from every range (ASCII, the BMP, surrogates alone or paired), lengths past a wasm page.
    const unit = fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0, max: 0xffff }), fc.integer({ min: 0xd800, max: 0xdfff }));
    const text = fc.array(unit, { maxLength: 3000 }).map((units) => String.fromCharCode(...units));
    fc.assert(
      fc.property(text, fc.nat(40000), (t, pad) => {
        const long = t + 'x'.repeat(pad) + t;
        expect(wasmRounds(long)).toEqual(jsRounds(long));
        expect(wasmRounds(t)).toEqual(jsRounds(t));
      }),
      { numRuns: 200 },
    );
    // The digest of a long text is the one every copy recorded before (a fixed value: changing it would resend every conversation's memory).
    expect(digestOf('<working_memory>\n' + 'a note, é ✗ \ud83d\ude00\n'.repeat(400) + '</working_memory>')).toBe('091877d22ba3e21e19e35c55e6b1');
  });
});

const EVENTS: AgentEvent[] = [
  { name: 'Begin', moment: 'session-start' },
  { name: 'Ask', moment: 'prompt' },
  { name: 'ToolDone', moment: 'tool-done' },
  { name: 'Bye', moment: 'session-end' },
];
const eventFor = (name: string) => eventByName(EVENTS, name);

function adapter(memoryCopy: 'kept' | 'replaced', memoryAtStart = true): AgentAdapter {
  return {
    id: 'probe',
    aliases: [],
    displayName: 'Probe',
    metaName: 'probe-agent',
    events: EVENTS,
    eventFor,
    parseInput: (text, event) => parseHookJson(text, event, { id: 'probe', displayName: 'Probe', eventFor }).input,
    toolEvent: (input, root) => toolEventFrom(input, root),
    answer: {
      contextCap: 20_000,
      memoryCopy,
      memoryAtStart,
      answer: (input, context, memory) => (input.moment === 'session-start' || input.moment === 'prompt' ? { context, ...(memory ? { memory } : {}) } : undefined),
    },
    config: claudeConfig,
  };
}

let root: string;
let env: AppEnv;
const SID = 'resend-1';

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'wmem-resend-'));
  await mkdir(path.join(root, 'project'));
  env = { home: path.join(root, 'home'), cwd: path.join(root, 'project'), env: {}, now: () => new Date('2026-11-25T08:00:00Z') };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

type Answer = { context: string; memory?: string };
async function fire(agent: AgentAdapter, event: string, fields: Record<string, unknown> = {}): Promise<Answer> {
  const answer = await hookWith(agent, { event, readInput: async () => JSON.stringify({ session_id: SID, cwd: env.cwd, hook_event_name: event, ...fields }) }, env);
  expect(answer.ok, answer.note).toBe(true);
  return answer.output as Answer;
}

/** `wmem note` from another terminal: the session the hooks serve is the project's current one. */
const noteFromOutside = (text: string) => addNote({ text }, env);
const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('the rule through the hook driver', () => {
  it('an agent that keeps every text: a note from outside reaches the next prompt once, then never again', async () => {
    const agent = adapter('kept');
    const start = await fire(agent, 'Begin', { source: 'startup' });
    expect(start.context).toMatch(/^<working_memory>/);
    const quiet = await fire(agent, 'Ask');
    expect(quiet.context).toMatch(/^<context_meta>/);

    await noteFromOutside('the staging database moved to db2');
    const next = await fire(agent, 'Ask');
    expect(count(next.context, 'the staging database moved to db2')).toBe(1);
    expect(next.context).toMatch(/^\[wmem: your working memory changed since the copy given earlier in this conversation \(scratch_notes\)/);
    // Only the block that changed, not a second copy of the overview.
    expect(next.context).not.toContain('<working_memory>');

    const after = await fire(agent, 'Ask');
    expect(after.context).not.toContain('db2');
    expect(after.context).toMatch(/^<context_meta>/);
  });

  it('a resume whose copy is current gets a pointer; one whose copy is out of date gets what changed', async () => {
    const agent = adapter('kept');
    await fire(agent, 'Begin', { source: 'startup' });
    const same = await fire(agent, 'Begin', { source: 'resume' });
    expect(same.context).toMatch(/your working memory is unchanged/);
    await noteFromOutside('a decision made in another terminal');
    const changed = await fire(agent, 'Begin', { source: 'resume' });
    expect(count(changed.context, 'a decision made in another terminal')).toBe(1);
    expect(changed.context).not.toContain('<working_memory>');
    expect((await fire(agent, 'Ask')).context).not.toContain('a decision made in another terminal');
  });

  it('an agent whose memory goes with the first prompt (Gemini CLI): the resumed session gets the note at its next prompt', async () => {
    const agent = adapter('kept', false);
    expect(await fire(agent, 'Begin', { source: 'startup' })).toBeUndefined();
    expect((await fire(agent, 'Ask')).context).toMatch(/^<working_memory>/);
    await noteFromOutside('reach me after the resume');
    expect(await fire(agent, 'Begin', { source: 'resume' })).toBeUndefined();
    expect(count((await fire(agent, 'Ask')).context, 'reach me after the resume')).toBe(1);
    expect((await fire(agent, 'Ask')).context).not.toContain('reach me after the resume');
  });

  it('an agent that swaps its copy (OpenCode): the prompt hands over the new part whole, beside the meter, once', async () => {
    const agent = adapter('replaced');
    const start = await fire(agent, 'Begin', { source: 'startup' });
    expect(start.context).toMatch(/^<working_memory>/);
    expect((await fire(agent, 'Ask')).memory).toBeUndefined();
    await noteFromOutside('swap this in');
    const next = await fire(agent, 'Ask');
    expect(next.context).toMatch(/^<context_meta>/);
    expect(next.memory).toMatch(/^<working_memory>/);
    expect(next.memory).toContain('swap this in');
    expect((await fire(agent, 'Ask')).memory).toBeUndefined();
  });

  it('a subagent event never starts a session and never gets memory; its tool calls count for the session', async () => {
    const agent = adapter('kept');
    const sub = await hookWith(agent, { event: 'Begin', readInput: async () => JSON.stringify({ session_id: SID, cwd: env.cwd, source: 'startup', agent_id: 'a-1' }) }, env);
    expect(sub.ok).toBe(true);
    expect(sub.output).toBeUndefined();
    expect(await readdir(env.home).catch(() => [])).not.toContain('sessions');
    await fire(agent, 'Begin', { source: 'startup' });
    const ask = await hookWith(agent, { event: 'Ask', readInput: async () => JSON.stringify({ session_id: SID, cwd: env.cwd, isSidechain: true }) }, env);
    expect(ask.output).toBeUndefined();
    const tool = await hookWith(agent, { event: 'ToolDone', readInput: async () => JSON.stringify({ session_id: SID, cwd: env.cwd, agent_id: 'a-1', tool_name: 'Edit', tool_input: { file_path: path.join(env.cwd, 'src', 'a.ts') }, tool_response: {} }) }, env);
    expect(tool.note).toMatch(/active: src\/a\.ts.*subagent/);
  });
});
