// The first stage of `wmem context`, run on every prompt: answers from the session's answer cache
// (store/answers.ts) when the same command line, in the same folder and environment, finds every
// file it was computed from unchanged, without loading the full entry (compiling fast.cjs alone
// costs more than the whole answer here). Anything unexpected (no cache, another key, a changed
// or unreadable file, a session it cannot name) returns false: bin/wmem.js then runs the full
// path, which answers and writes the cache again. It never writes anything itself.
import { lstatSync } from 'node:fs';
import path from 'node:path';
import { VERSION } from '../options.js';
import { ANSWERS_VERSION, lookupAnswer } from '../store/answers.js';
import { encodeCwd, homeFrom, isValidSessionId } from '../store/names.js';
import { POINTER_FLAGS, readRegularSync } from '../store/regular-file.js';
import { writeStdout } from './stdout.js';

// bin/wmem.js's `--version` prints through it too: process.stdout on a pipe builds a stream.
export { writeStdout };

/** The version an entry must carry: wmem's and the cache format's. */
export const ANSWER_VERSION = `${VERSION}/${ANSWERS_VERSION}`;

/** The session the full path would find in the plain project folder: $WMEM_SESSION, else `current`. */
function sessionDir(env: NodeJS.ProcessEnv, cwd: string): string | undefined {
  const projectDir = path.join(homeFrom(undefined, env), 'sessions', encodeCwd(cwd));
  const id = env.WMEM_SESSION || readRegularSync(path.join(projectDir, 'current'), 'utf8', Infinity, POINTER_FLAGS).split('\n')[0].trim();
  return isValidSessionId(id) ? path.join(projectDir, id) : undefined;
}

/** True when the answer was printed from the cache; false: the full path must answer. */
export function answerFromCache(args: string[]): boolean {
  let entry;
  try {
    const cwd = process.cwd();
    const dir = sessionDir(process.env, cwd);
    // The full path refuses a project or session folder that is a link (store/project.ts, session.ts): so does this.
    const state = dir && path.join(dir, 'state');
    if (!state || lstatSync(path.dirname(dir)).isSymbolicLink() || lstatSync(dir).isSymbolicLink() || lstatSync(state).isSymbolicLink()) return false;
    entry = lookupAnswer(state, { argv: args, version: ANSWER_VERSION, cwd, env: process.env });
  } catch {
    return false;
  }
  if (!entry) return false;
  // Printed once only: a failure from here on is not a reason to print it again.
  if (entry.stderr) process.stderr.write(entry.stderr);
  writeStdout(entry.stdout);
  return true;
}
