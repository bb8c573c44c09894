// A harness writing its transcript from another process: appends numbered lines to FILE until
// STOP exists, opening the file for each line and, like a writer that gets descheduled, holding
// it open for up to GAP_MS before writing. Prints how many lines it wrote and which of them it
// held open for more than LATE_MS (the machine's load can deschedule it there for longer than it
// asked): docs/guarantees.md's limit, a writer paused past the swap's 25 ms settle, applies to those.
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';

const [file, stop, gapMs = '0'] = process.argv.slice(2);
const busyWait = (ms) => {
  for (const until = performance.now() + ms; performance.now() < until; );
};
const LATE_MS = 20;
let n = 0;
const late = [];
while (!existsSync(stop)) {
  const opened = performance.now();
  const fd = openSync(file, 'a');
  busyWait(Math.random() * Number(gapMs));
  writeSync(fd, JSON.stringify({ type: 'system', content: `appended ${n}` }) + '\n');
  if (performance.now() - opened > LATE_MS) late.push(n);
  n++;
  closeSync(fd);
  busyWait(0.3);
}
process.stdout.write(JSON.stringify({ written: n, late }));
