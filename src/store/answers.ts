// The answer cache (<session>/state/answers.json): the exact stdout of a per-prompt command
// (`wmem context …`) keyed by everything it was computed from: the command line, the wmem
// version, the working folder, the environment, and the identity of every file it read (inode,
// size, modification and change times, or absence). The first stage (src/entries/first.ts)
// answers from it without loading the full bundle when every key still matches; anything else
// is a miss, and the full path answers and writes the entry again. Built-ins only: the first
// stage bundles this file, and it must stay small.
import { lstatSync, statSync } from 'node:fs';
import path from 'node:path';
import { nameHash } from '../memory/name-hash.js';
import { readPrivateText } from './private-file.js';

export const ANSWERS_VERSION = 1;

/** A file's identity: a new write is a new inode (atomic rename) or a new size or time. */
export type Signature = string;

export interface AnswerEntry {
  /** wmem's version and this format's, joined: another build never answers from this one's entry. */
  version: string;
  cwd: string;
  env: string;
  /** Every file the answer was computed from, with its identity taken before it was read. */
  inputs: [file: string, signature: Signature][];
  /** The state folder the entry was written in (folderId): a copied session folder, or a cache copied into another's, is a miss. */
  state: string;
  stdout: string;
  stderr: string;
}

export interface AnswersFile {
  v: typeof ANSWERS_VERSION;
  /** Keyed by the command line and the environment (answerKey). */
  entries: Record<string, AnswerEntry>;
}

export function answersFile(stateDir: string): string {
  return path.join(stateDir, 'answers.json');
}

/** What an entry's own identity is: a link's is the link's and its target's (either may change). */
function identity(s: { ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint }): string {
  return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

/** A folder's own identity (device and inode): a copy of it, even with the same name, is another folder. */
export function folderId(dir: string): string {
  const s = lstatSync(dir, { bigint: true });
  return `${s.dev}:${s.ino}`;
}

/** '-' for a file that is not there (its appearing is a change too). */
export function signature(file: string): Signature {
  const own = lstatSync(file, { bigint: true, throwIfNoEntry: false });
  if (!own) return '-';
  if (!own.isSymbolicLink()) return identity(own);
  const target = statSync(file, { bigint: true, throwIfNoEntry: false });
  return `L${identity(own)}>${target ? identity(target) : '-'}`;
}

/**
 * For an entry whose being there is all that counts (`off`, a `.git`: the full path only asks
 * lstat whether it exists): git touches `.git` on every command, which must not be a miss.
 */
export const PRESENT = 'present';

export function presence(file: string): Signature {
  return lstatSync(file, { throwIfNoEntry: false }) ? PRESENT : '-';
}

export function signInputs(files: string[]): [string, Signature][] {
  return [...new Set(files)].map((file) => [file, signature(file)]);
}

export function signPresence(files: string[]): [string, Signature][] {
  return [...new Set(files)].map((file) => [file, presence(file)]);
}

/**
 * A hash of the whole environment, sorted (with its length): any variable that could change the
 * output (a setting, a home, an agent's folder) is in the key, and no value is stored.
 */
export function envKey(env: NodeJS.ProcessEnv): string {
  const text = Object.keys(env)
    .sort()
    .map((k) => `${k}=${env[k]}`)
    .join('\0');
  return `${nameHash(text)}.${text.length}`;
}

/**
 * The cache, read only when it is a regular file of this user's that no one else may write (it
 * is printed into the agent's prompt as it is): a link, or a file someone else planted, is a miss.
 */
export function readAnswers(stateDir: string): AnswersFile | undefined {
  const text = readPrivateText(answersFile(stateDir));
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as AnswersFile;
    return parsed?.v === ANSWERS_VERSION && parsed.entries && typeof parsed.entries === 'object' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export interface AnswerKey {
  argv: string[];
  version: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** Where an entry is kept: one per command line and environment (a hook's and a shell's apart). */
export function answerKey(argv: string[], env: string): string {
  return `${JSON.stringify(argv)} ${env}`;
}

/** The entry that still holds for this key, or undefined (anything unexpected is a miss). */
export function lookupAnswer(stateDir: string, key: AnswerKey): AnswerEntry | undefined {
  const env = envKey(key.env);
  const entry = readAnswers(stateDir)?.entries[answerKey(key.argv, env)];
  // An entry that lists no input would hold for ever: the full path always lists the session's.
  if (!entry || entry.version !== key.version || entry.cwd !== key.cwd || entry.env !== env || typeof entry.stdout !== 'string' || !Array.isArray(entry.inputs) || entry.inputs.length === 0) return undefined;
  // The inputs name the files of the session that wrote the entry: in a copy of its folder they
  // still match, so the folder itself must be the one it was written in.
  if (entry.state !== folderId(stateDir)) return undefined;
  for (const [file, sig] of entry.inputs) if ((sig === PRESENT ? presence(file) : signature(file)) !== sig) return undefined;
  return entry;
}
