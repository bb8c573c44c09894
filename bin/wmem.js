#!/usr/bin/env node
// Entry point. `wmem context` and `wmem hook` run on every prompt, so they go through a lean
// entry first; everything else (and anything the lean entry does not recognise) goes to the
// full command line. Both are built into dist/ by `npm install` (the prepare script).
import { runFast } from '../dist/fast/fast.js';

if (!(await runFast(process.argv))) {
  const { run } = await import('../dist/cli.js');
  await run(process.argv);
}
