// A harness writing its transcript from another process: appends numbered lines to FILE until
// STOP exists, opening the file for each line and, like a writer that gets descheduled, holding
// it open for up to GAP_MS before writing. Prints how many lines it wrote.
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';

const [file, stop, gapMs = '0'] = process.argv.slice(2);
const busyWait = (ms) => {
  for (const until = performance.now() + ms; performance.now() < until; );
};
let n = 0;
while (!existsSync(stop)) {
  const fd = openSync(file, 'a');
  busyWait(Math.random() * Number(gapMs));
  writeSync(fd, JSON.stringify({ type: 'system', content: `appended ${n++}` }) + '\n');
  closeSync(fd);
  busyWait(0.3);
}
process.stdout.write(String(n));
