// Shared by the fault suite: a seeded random source (every run tries the same instants), the
// table of real-shaped secrets, and a sandbox with an initialised session.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { runJson, sandbox, type Sandbox } from '../helpers/cli.js';

/** mulberry32: small, seeded, good enough to spread kill instants. */
export function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Real-shaped secrets (none is live), each with a part that must never appear in what wmem
 * injects or prints once it is redacted or refused.
 */
export const SECRETS: { kind: string; value: string; mark: string }[] = [
  { kind: 'Anthropic', value: 'sk-ant-api03-Qz8xW2vN5mK9pL3rT7yB1cD4fG6hJ0kM', mark: 'Qz8xW2vN5mK9pL3rT7yB' },
  { kind: 'OpenAI', value: 'sk-proj-Hn4Jk8Lm2Np6Qr0St3Uv7Wx1Yz5Ab9Cd', mark: 'Hn4Jk8Lm2Np6Qr0St3Uv' },
  { kind: 'GitHub', value: 'ghp_R4nD0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY', mark: 'R4nD0mT0k3nV4lu3F0rT' },
  { kind: 'GitHub fine-grained', value: 'github_pat_11ABCDEFG0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789', mark: 'aBcDeFgHiJkL_mNoPqRs' },
  { kind: 'AWS key id', value: 'AKIAZ7QW3ERT5YUI9OPL', mark: 'AKIAZ7QW3ERT5YUI9OPL' },
  { kind: 'AWS secret', value: 'aws_secret_access_key = Zk3/Qw8+Er5tYu1IoP9aS7dF2gH4jK6lZx0Cv8Bn', mark: 'Zk3/Qw8+Er5tYu1IoP9a' },
  { kind: 'Slack', value: 'xoxb-2468013579-1357924680-Ab1Cd2Ef3Gh4Ij5Kl6', mark: 'Ab1Cd2Ef3Gh4Ij5Kl6' },
  { kind: 'Google', value: 'AIzaSyB3x9Q2w7E4r1T6y8U0i5O3p2A9s7D4f6G', mark: 'SyB3x9Q2w7E4r1T6y8U0' },
  { kind: 'Stripe', value: 'sk_live_51Hb7Xy2Qz9Wv4Ut8Sr3Pq6On1', mark: '51Hb7Xy2Qz9Wv4Ut8Sr3' },
  { kind: 'JWT', value: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ3bWVtLXRlc3QifQ.k3Jf8Qm2Zx7Lp4Vn9Rt1Ws6Yb0', mark: 'k3Jf8Qm2Zx7Lp4Vn9Rt1' },
  { kind: 'PEM', value: '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAwmemTESTkeyBODYlineONE0123456789\nq8Zt4Lk2Jh6Gf0Ds3Ap9Mn1Bv5Cx7Zl2Kj4Hg6Fd8Sa0Po\n-----END RSA PRIVATE KEY-----', mark: 'wmemTESTkeyBODYline' },
  { kind: 'PGP', value: '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGwmemPGPtestBODYq9Xz3Lw7Kv1Jt5Hr8Gp2\n=Ab3d\n-----END PGP PRIVATE KEY BLOCK-----', mark: 'wmemPGPtestBODY' },
  { kind: 'password', value: 'password=Tr0ub4dor&3horse', mark: 'Tr0ub4dor&3horse' },
];

/** A sandbox with an initialised session; returns its folder. */
export async function withSession(id?: string): Promise<{ box: Sandbox; dir: string; wm: (...p: string[]) => string }> {
  const box = await sandbox();
  const dir = (await runJson(box, ['init', ...(id ? ['--session', id] : [])])).path as string;
  return { box, dir, wm: (...p: string[]) => path.join(dir, 'working-memory', ...p) };
}

/** Every file under `dir` (relative paths), for before/after comparisons. */
export async function listTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) await walk(full);
      else out.push(path.relative(dir, full));
    }
  };
  await walk(dir);
  return out.sort();
}
