// The team memory file with real git's union merge: any share/forget history on two branches
// merges to the same set whichever branch is merged into which. Hundreds of git processes: the
// slow tier (test/tiers.ts).
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { TEAM_ATTRIBUTES, formatTeam, parseTeam, removeFromTeam, resolveTeam, upsertTeam, type TeamEntry } from '../../src/memory/team.js';

const entry = (id: string, text: string, updated = '2026-11-01T00:00:00.000Z', type: TeamEntry['type'] = 'project'): Omit<TeamEntry, 'line'> => ({ id, type, text, created: '2026-10-01T00:00:00.000Z', updated });

describe('two branches, merged with git union', () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  type Op = { share: string } | { forget: string } | { edit: string };
  const ids = ['m-a', 'm-b', 'm-c', 'm-d', 'm-e'];
  const op: fc.Arbitrary<Op> = fc.oneof(fc.constantFrom(...ids).map((id) => ({ share: id })), fc.constantFrom(...ids).map((id) => ({ forget: id })), fc.constantFrom(...ids).map((id) => ({ edit: id })));

  /** Applies ops on a branch, one commit each; the clock is the op's index on that branch. */
  function applyOps(repo: string, branch: string, ops: Op[], day: number) {
    git(repo, 'checkout', '-q', branch);
    const file = path.join(repo, '.wmem', 'memory.md');
    ops.forEach((o, i) => {
      const current = parseTeam(readFileSync(file, 'utf8'));
      const stamp = new Date(Date.UTC(2026, 10, day, 0, 0, i)).toISOString();
      let next = current;
      if ('share' in o) next = upsertTeam(current, [entry(o.share, `fact ${o.share}`, stamp)]);
      if ('edit' in o) next = upsertTeam(current, [entry(o.edit, `fact ${o.edit} edited on ${branch}`, stamp)]);
      if ('forget' in o) next = removeFromTeam(current, o.forget).file;
      writeFileSync(file, formatTeam(next));
      git(repo, 'commit', '-q', '-am', `${branch} ${i}`, '--allow-empty');
    });
  }

  function mergedSet(repo: string, into: string, from: string): string {
    git(repo, 'checkout', '-q', '-B', `m-${into}`, into);
    git(repo, 'merge', '-q', '--no-edit', from);
    const { entries } = resolveTeam(parseTeam(readFileSync(path.join(repo, '.wmem', 'memory.md'), 'utf8')).entries);
    return JSON.stringify(entries.map(({ line: _line, ...e }) => e));
  }

  it('any interleaving of share, edit and forget merges to the same set both ways', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 5 }), fc.array(op, { maxLength: 5 }), fc.array(fc.constantFrom(...ids), { maxLength: 3 }), (left, right, base) => {
        const repo = mkdtempSync(path.join(os.tmpdir(), 'wmem-team-'));
        try {
          git(repo, 'init', '-q');
          mkdirSync(path.join(repo, '.wmem'));
          writeFileSync(path.join(repo, '.gitattributes'), TEAM_ATTRIBUTES + '\n');
          writeFileSync(path.join(repo, '.wmem', 'memory.md'), formatTeam(upsertTeam(parseTeam(''), base.map((id) => entry(id, `fact ${id}`)))));
          git(repo, 'add', '.');
          git(repo, 'commit', '-q', '-m', 'base');
          git(repo, 'branch', 'left');
          git(repo, 'branch', 'right');
          applyOps(repo, 'left', left, 10);
          applyOps(repo, 'right', right, 11);
          expect(mergedSet(repo, 'left', 'right')).toBe(mergedSet(repo, 'right', 'left'));
        } finally {
          rmSync(repo, { recursive: true, force: true });
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
