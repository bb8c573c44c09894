// `wmem sweep`: storage governance for CI and cron, over every project under the home.
import { sweepHome } from '../ops/sweep/sweep.js';
import { parseTtl } from '../ops/sweep/plan.js';
import type { AppEnv } from './env.js';

export interface SweepOptions {
  maxFiles?: number;
  ttl?: string;
  dryRun?: boolean;
}

export type SweepReport = Awaited<ReturnType<typeof sweepHome>>;

export async function sweep(options: SweepOptions, env: AppEnv): Promise<SweepReport> {
  const ttlMs = parseTtl(options.ttl ?? '7d');
  const maxFiles = options.maxFiles ?? 300;
  return sweepHome(env.home, { maxFiles, ttlMs, nowMs: env.now().getTime() }, Boolean(options.dryRun));
}
