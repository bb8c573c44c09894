// A floor for compaction time: what bare Node needs to read a history and JSON.parse every line,
// the least any reader that renders a transcript from the messages has to do. bench/compact.mjs
// runs it beside `wmem compact` on the same file.
//   node bench/parse-floor.mjs FILE
import { closeSync, openSync, readSync } from 'node:fs';

const fd = openSync(process.argv[2], 'r');
const chunk = Buffer.allocUnsafe(1 << 20);
let carry = '';
let lines = 0;
for (let got; (got = readSync(fd, chunk, 0, chunk.length, null)) > 0; ) {
  const text = carry + chunk.toString('utf8', 0, got);
  let from = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
    JSON.parse(text.slice(from, nl));
    lines++;
    from = nl + 1;
  }
  carry = text.slice(from);
}
closeSync(fd);
if (carry.trim()) lines++;
if (process.argv[3] === '--print') console.log(lines);
