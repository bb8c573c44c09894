// Whether a line before a quick cut may carry one of the kept part's link ids (the scanner's
// conservative answer), asked by the cut's finishing, not by the compacting run: the run commits
// without waiting for the answer (it waited ~25 ms for grep on the other core, a seventh of its
// wall time: bench/README.md, compact6), and the finishing, which reads the archive anyway,
// undoes the cut when the answer is "maybe" (quick-undo.ts).
import { promises as fs } from 'node:fs';
import { IdScanner } from '../model/id-scan.js';
import { readChunksInThread } from '../stream/read.js';
import { startGrepCheck } from '../stream/grep-check.js';
import { fsError } from '../../ui/errors.js';

/**
 * Starts the check of `file`'s bytes [0, cut) for `ids`: grep -F on the other core
 * (grep-check.ts), else in this thread. Settles to true (a link may cross the cut) or false; never
 * rejects (an error is a "maybe"). `answer` is a new file's name for grep's answer.
 */
export function mayLinkBefore(file: string, cut: number, ids: string[], answer: string): Promise<boolean> {
  const scanner = IdScanner.for(ids);
  if (!scanner) return Promise.resolve(true);
  return (async () => {
    const handle = await fs.open(file, 'r').catch((err) => {
      throw fsError(err, 'read', file);
    });
    try {
      const native = startGrepCheck(handle.fd, scanner.fixedStrings(), { answer });
      const first = await native?.firstMatch;
      // grep read to its first match: one before the cut may link; one after it says "no" only if
      // the file still holds the whole range. The ids come from the kept lines, so a grep that
      // behaves always finds one: no match at all means it did not (another grep's options, a
      // file cut meanwhile), and the bytes are checked here instead.
      if (first !== undefined && first !== -1) return first < cut || (await handle.stat()).size < cut;
      let scanned = 0;
      for await (const chunk of readChunksInThread(handle.fd, file, 0, cut)) {
        if (scanner.push(chunk)) return true;
        scanned += chunk.length;
      }
      // The file shrank under the check (another program): bytes not read cannot be ruled out.
      return scanned < cut;
    } finally {
      await handle.close().catch(() => {});
    }
  })().catch(() => true);
}
