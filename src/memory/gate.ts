// Pure: what may not enter memory, because memory is stored in plain files and injected into
// prompts. Secrets are refused at the gate everywhere; workspace memory adds stricter rules.
import { usageError } from '../ui/errors.js';

export interface SecretMatch {
  kind: string;
}

// Known token prefixes are caught wherever they start: a token glued to other characters (a
// session id "S1ghp_…", "token=xoxb-…") is still a token. Only OpenAI's bare `sk-`, which ends
// common words ("task-", "disk-"), must not follow a letter.
// Each pattern comes with the literal text every match of it holds (one of `needles`; lower case
// where the pattern ignores case, which for these patterns is ASCII case alone): most text holds
// none (a file path, a command, every string of a hook state on every prompt), and a pattern
// whose needles are absent is never run, nor compiled (13 patterns, some through ICU's case
// tables: a third of what a tool call's hook executed in them). test/unit/gate.test.ts checks
// that the needles never skip a match.
export const SECRET_PATTERNS: readonly { kind: string; pattern: RegExp; needles: readonly string[] }[] = [
  { kind: 'an Anthropic API key', pattern: /sk-ant-[A-Za-z0-9_-]{20,}/, needles: ['sk-ant-'] },
  { kind: 'an OpenAI-style API key', pattern: /sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|(?<![A-Za-z])sk-(?:live-|test-)?[A-Za-z0-9_-]{20,}/, needles: ['sk-'] },
  { kind: 'an AWS access key id', pattern: /(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])/, needles: ['AKIA', 'ASIA'] },
  { kind: 'an AWS secret access key', pattern: /aws_secret_access_key\s*[=:]\s*[A-Za-z0-9/+=]{40}/i, needles: ['aws_secret_access_key'] },
  { kind: 'a GitHub token', pattern: /gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}/, needles: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'] },
  { kind: 'a Slack token', pattern: /xox[abposr]-[A-Za-z0-9-]{10,}/, needles: ['xox'] },
  { kind: 'a Google API key', pattern: /AIza[0-9A-Za-z_-]{35}/, needles: ['AIza'] },
  { kind: 'a Stripe key', pattern: /(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/, needles: ['k_live_', 'k_test_'] },
  { kind: 'a private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/, needles: ['-----BEGIN '] },
  { kind: 'a JSON Web Token', pattern: /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/, needles: ['eyJ'] },
  // Passwords are often short; keys and tokens named as such are long enough to be sure.
  { kind: 'a password assignment', pattern: /\b(?:password|passwd|pwd)\s*[=:]\s*["']?[^\s"'<>]{4,}/i, needles: ['passw', 'pwd'] },
  { kind: 'a password assignment', pattern: /\b(?:secret|api[_-]?key|access[_-]?token)\s*[=:]\s*["']?[^\s"']{8,}/i, needles: ['secret', 'api', 'access'] },
  { kind: 'credentials in a URL', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:[^\s/@]{3,}@/i, needles: ['://'] },
];

type SecretPattern = (typeof SECRET_PATTERNS)[number];

/** Whether a pattern may match `text` (it holds one of the pattern's needles); else it cannot. */
function mayMatch(text: string): (entry: SecretPattern) => boolean {
  let lower: string | undefined;
  return ({ pattern, needles }) => {
    // toLowerCase maps ASCII letters to ASCII letters one for one: an ASCII needle of a pattern
    // that ignores (ASCII) case is in the lower-cased text whenever the pattern matches.
    const haystack = pattern.ignoreCase ? (lower ??= text.toLowerCase()) : text;
    return needles.some((needle) => haystack.includes(needle));
  };
}

export function findSecret(text: string): SecretMatch | undefined {
  const may = mayMatch(text);
  for (const entry of SECRET_PATTERNS) if (may(entry) && entry.pattern.test(text)) return { kind: entry.kind };
  return undefined;
}

/** Replaces secrets in text that must be kept (tool output in hot state) with a marker. */
// A PEM or PGP private key block, body and all (to the end of the text when its END line is
// missing or cut off): the body lines carry no marker of their own.
const KEY_BLOCK = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$(?![\s\S]))/g;

export function redactSecrets(text: string): string {
  // Most text holds none (every string of a hook state, written on every prompt): one test per
  // pattern then, rather than a global copy of each and a replace. A private key block starts
  // with what the private key pattern finds, so nothing here would be replaced either.
  if (!findSecret(text)) return text;
  let out = text.includes('PRIVATE KEY') ? text.replace(KEY_BLOCK, '[redacted: a private key]') : text;
  for (const entry of SECRET_PATTERNS) {
    const { kind, pattern } = entry;
    if (mayMatch(out)(entry)) out = out.replace(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : pattern.flags + 'g'), `[redacted: ${kind}]`);
  }
  return out;
}

/** Notes and section text: refuse secrets (exit 2, nothing written). */
export function guardNoteText(text: string): void {
  const secret = findSecret(text);
  if (secret) {
    throw usageError(
      `refused: the text contains what looks like ${secret.kind}; memory is stored in plain files and injected into prompts`,
      'remove the secret (refer to where it is kept instead) and try again',
    );
  }
}

// ---- Workspace memory's stricter gate (docs/memory.md) ----------------------------------------------

/** Why a text may not enter workspace memory, or undefined when it may. */
export interface GateRefusal {
  rule: 'too-short' | 'secret' | 'forget-request' | 'injection' | 'commit-hash' | 'stack-trace' | 'raw-error' | 'path-heavy' | 'unknown-type' | 'too-long';
  reason: string;
}

export const MIN_WORKSPACE_CHARS = 20;

// "Don't remember this" in every language wmem ships (en, zh simplified and traditional).
const FORGET_REQUEST = [
  /\b(?:do\s*n[o']?t|do not|never)\s+(?:remember|memori[sz]e|save|store|keep)\s+(?:this|that|it)\b/i,
  /\bforget\s+(?:this|that|it)\b/i,
  /\bnot\s+to\s+be\s+remembered\b/i,
  /不要记住|不要記住|别记住|別記住|不要保存|不用记|不用記|忘掉这|忘掉這|忘记这|忘記這/,
];

// Text that tries to instruct the model that reads the memory.
const INJECTION = [
  /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier|preceding|your)\s+(?:instructions?|prompts?|rules|directions|messages?|context)\b/i,
  /\byou\s+are\s+now\s+(?:a|an|in)\b/i,
  /\b(?:new|updated)\s+system\s+prompt\b/i,
  /\bsystem\s*prompt\s*:/i,
  /<\/?\s*(?:system|assistant|instructions?)\s*>/i,
  /\b(?:act|behave)\s+as\s+if\s+(?:you\s+have\s+)?no\s+(?:rules|restrictions|guidelines)\b/i,
  /\bjailbreak\b|\bDAN mode\b/i,
  /忽略(?:之前|以上|先前|所有)的?(?:指令|指示|说明|說明|提示)/,
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
  if (INJECTION.some((p) => p.test(trimmed))) return { rule: 'injection', reason: 'it tries to instruct the model that reads the memory ("ignore previous instructions" and the like)' };
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
