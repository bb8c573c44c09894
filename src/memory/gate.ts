// Pure: what may not enter memory, because memory is stored in plain files and injected into
// prompts. Secrets are refused at the gate everywhere; workspace memory adds stricter rules
// (workspace-gate.ts: a module of its own, whose patterns every hook would otherwise build).
import { usageError } from '../ui/errors.js';
import { mayMatch } from './needles.js';

export interface SecretMatch {
  kind: string;
}

// Known token prefixes are caught wherever they start: a token glued to other characters (a
// session id "S1ghp_…", "token=xoxb-…") is still a token. Only OpenAI's bare `sk-`, which ends
// common words ("task-", "disk-"), must not follow a letter.
// Each pattern comes with the literal text every match of it holds (its needles, needles.ts): most
// text holds none (a file path, a command, every string of a hook state on every prompt), and a
// pattern whose needles are absent is never run, nor compiled (13 patterns, some through ICU's case
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
  // '.eyJ', not 'eyJ': base64 of JSON holds 'eyJ' (`{"`) everywhere, a hook state's transcript
  // tail too (written on every prompt), and base64 has no '.', which every token's second part follows.
  { kind: 'a JSON Web Token', pattern: /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/, needles: ['.eyJ'] },
  // Passwords are often short; keys and tokens named as such are long enough to be sure.
  { kind: 'a password assignment', pattern: /\b(?:password|passwd|pwd)\s*[=:]\s*["']?[^\s"'<>]{4,}/i, needles: ['passw', 'pwd'] },
  { kind: 'a password assignment', pattern: /\b(?:secret|api[_-]?key|access[_-]?token)\s*[=:]\s*["']?[^\s"']{8,}/i, needles: ['secret', 'api', 'access'] },
  { kind: 'credentials in a URL', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:[^\s/@]{3,}@/i, needles: ['://'] },
];

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
