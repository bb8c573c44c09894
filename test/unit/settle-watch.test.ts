// The settle watch (untilStill) behind every swap of messages.jsonl: it ends only on a look that
// began `settleMs` after the last movement. On a loaded machine a look can return long after it
// began (its stat waits for the thread pool, the process is descheduled); what it saw is as old
// as its start, so such a look must not end the watch early (compact-appends lost a line this
// way at CI's load).
import { expect, it } from 'vitest';
import { untilStill } from '../../src/history/stream/swap.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('a quiet look that returned late does not end the watch: the last look began settleMs after the start', async () => {
  const settleMs = 25;
  const begins: number[] = [];
  const called = Date.now();
  await untilStill(settleMs, async () => {
    begins.push(Date.now());
    // The first look is slow (as a stat on a loaded machine); none sees anything move.
    if (begins.length === 1) await sleep(3 * settleMs);
    return false;
  }, Infinity);
  expect(begins.at(-1)! - called).toBeGreaterThanOrEqual(settleMs);
});

it('after a movement, ends only on a look that began settleMs after the movement was seen', async () => {
  const settleMs = 25;
  let movedSeenAt = 0;
  const begins: number[] = [];
  await untilStill(settleMs, async () => {
    begins.push(Date.now());
    if (begins.length === 2) {
      await sleep(2 * settleMs);
      movedSeenAt = Date.now();
      return true;
    }
    if (begins.length === 3) await sleep(2 * settleMs);
    return false;
  }, Infinity);
  expect(begins.at(-1)! - movedSeenAt).toBeGreaterThanOrEqual(settleMs);
});

it('a slow look does not use up the cap: the next look that is quiet long enough ends it', async () => {
  const begins: number[] = [];
  const called = Date.now();
  await untilStill(25, async () => {
    begins.push(Date.now());
    if (begins.length === 1) await sleep(150);
    return false;
  }, 100);
  expect(begins.at(-1)! - called).toBeGreaterThanOrEqual(25);
});

it('with no settle time, one quiet look ends it', async () => {
  let looks = 0;
  await untilStill(0, async () => {
    looks++;
    return false;
  });
  expect(looks).toBe(1);
});
