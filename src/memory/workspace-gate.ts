// Pure: workspace memory's stricter gate (docs/memory.md): besides secrets (gate.ts), what is
// too short, asks not to be remembered, instructs the model, or is a trace, a raw error, a commit
// hash or mostly paths does not enter the memory every session of the project shares.
import { findSecret } from './gate.js';
import { INJECTION_REASON, instructsModel } from './injection.js';

/** Why a text may not enter workspace memory, or undefined when it may. */
export interface GateRefusal {
  rule: 'too-short' | 'secret' | 'forget-request' | 'injection' | 'commit-hash' | 'stack-trace' | 'raw-error' | 'path-heavy' | 'unknown-type' | 'too-long';
  reason: string;
}

export const MIN_WORKSPACE_CHARS = 20;

// The Chinese patterns below are spelled \uXXXX: a regular expression literal (and a comment
// inside an expression) keeps its characters in the bundle, and one non-ASCII character makes the
// whole compaction and end bundle a two-byte string for V8 (twice the memory to read and scan).
// As written, the zh one of FORGET_REQUEST:
//   不要记住|不要記住|别记住|別記住|不要保存|不用记|不用記|忘掉这|忘掉這|忘记这|忘記這

// "Don't remember this" in every language wmem ships (en, zh simplified and traditional).
const FORGET_REQUEST = [
  /\b(?:do\s*n[o']?t|do not|never)\s+(?:remember|memori[sz]e|save|store|keep)\s+(?:this|that|it)\b/i,
  /\bforget\s+(?:this|that|it)\b/i,
  /\bnot\s+to\s+be\s+remembered\b/i,
  /\u4e0d\u8981\u8bb0\u4f4f|\u4e0d\u8981\u8a18\u4f4f|\u522b\u8bb0\u4f4f|\u5225\u8a18\u4f4f|\u4e0d\u8981\u4fdd\u5b58|\u4e0d\u7528\u8bb0|\u4e0d\u7528\u8a18|\u5fd8\u6389\u8fd9|\u5fd8\u6389\u9019|\u5fd8\u8bb0\u8fd9|\u5fd8\u8a18\u9019/,
];

const COMMIT_HASH = /(?<![0-9a-z])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![0-9a-z])/i;

const STACK_TRACE = [
  /^\s*at\s+(?:[\w$.<>[\]]+\s+)?\(?(?:[\w./\\:-]+):\d+:\d+\)?\s*$/m, // V8
  /\bat\s+[\w$.<>]+\s+\((?:file:\/\/)?[\w./\\:-]+:\d+:\d+\)/, // V8, flattened onto one line
  /Traceback \(most recent call last\)/, // Python
  /^\s*File "[^"]+", line \d+/m,
  /^\s+at\s+[\w$.]+\([\w]+\.java:\d+\)/m, // JVM
  /goroutine \d+ \[/, // Go
  /^panic: /m,
];

const RAW_ERROR = [
  /^\s*(?:Uncaught\s+)?(?:[A-Z]\w*)?(?:Error|Exception)(?:\s*\[[\w-]+\])?:\s/m, // TypeError: x is undefined
  /\berror\s+TS\d{3,5}:/i, // tsc
  /^\s*(?:npm ERR!|ERR!|FATAL|fatal:)/m,
  /\bE[A-Z]{3,}:\s/, // ENOENT: no such file
];

const PATH_TOKEN = /^(?:~|\.{1,2})?(?:[/\\][\w.@+-]+)+[/\\]?$|^[\w.@+-]+(?:[/\\][\w.@+-]+)+[/\\]?$|^[A-Za-z]:[\\/]/;

/** The share of the text's characters (non-space) that belong to file paths. */
export function pathShare(text: string): number {
  const tokens = text.split(/\s+/).map((t) => t.replace(/^[`'"(<[]+|[`'")>\],.;:!?]+$/g, '')).filter(Boolean);
  const total = tokens.reduce((n, t) => n + t.length, 0);
  if (!total) return 0;
  const inPaths = tokens.filter((t) => PATH_TOKEN.test(t) && !/^https?:/i.test(t)).reduce((n, t) => n + t.length, 0);
  return inPaths / total;
}

/** The workspace gate: every rule, in the order a person would want to hear about it. */
export function checkWorkspaceText(text: string): GateRefusal | undefined {
  const trimmed = text.trim();
  const secret = findSecret(trimmed);
  if (secret) return { rule: 'secret', reason: `it contains what looks like ${secret.kind}; refer to where the secret is kept instead` };
  if (FORGET_REQUEST.some((p) => p.test(trimmed))) return { rule: 'forget-request', reason: 'it asks not to be remembered' };
  if (instructsModel(trimmed)) return { rule: 'injection', reason: INJECTION_REASON };
  if (trimmed.length < MIN_WORKSPACE_CHARS) {
    return { rule: 'too-short', reason: `it is under ${MIN_WORKSPACE_CHARS} characters (${trimmed.length}); say what to remember in a full sentence` };
  }
  if (STACK_TRACE.some((p) => p.test(trimmed))) return { rule: 'stack-trace', reason: 'it is a stack trace; keep the lesson learned, not the trace' };
  if (RAW_ERROR.some((p) => p.test(trimmed))) return { rule: 'raw-error', reason: 'it is a raw error message; keep the lesson learned, not the output' };
  if (COMMIT_HASH.test(trimmed)) return { rule: 'commit-hash', reason: 'it holds a commit hash, which goes stale; describe the change instead' };
  const share = pathShare(trimmed);
  if (share > 0.5) return { rule: 'path-heavy', reason: `it is mostly file paths (${Math.round(share * 100)} %); say what the files are for` };
  return undefined;
}
