// Pure: what may not enter memory, because memory is stored in plain files and injected into
// prompts. Secrets are refused at the gate everywhere; workspace memory adds stricter rules.
import { usageError } from '../ui/errors.js';

export interface SecretMatch {
  kind: string;
}

const SECRET_PATTERNS: { kind: string; pattern: RegExp }[] = [
  { kind: 'an Anthropic API key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  { kind: 'an OpenAI-style API key', pattern: /\bsk-(?:proj-|live-|test-)?[A-Za-z0-9_-]{20,}/ },
  { kind: 'an AWS access key id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { kind: 'an AWS secret access key', pattern: /aws_secret_access_key\s*[=:]\s*[A-Za-z0-9/+=]{40}/i },
  { kind: 'a GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/ },
  { kind: 'a Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { kind: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { kind: 'a private key', pattern: /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/ },
  { kind: 'a JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { kind: 'a password assignment', pattern: /\b(?:password|passwd|secret|api[_-]?key|access[_-]?token)\s*[=:]\s*["']?[^\s"']{8,}/i },
];

export function findSecret(text: string): SecretMatch | undefined {
  for (const { kind, pattern } of SECRET_PATTERNS) if (pattern.test(text)) return { kind };
  return undefined;
}

/** Replaces secrets in text that must be kept (tool output in hot state) with a marker. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const { kind, pattern } of SECRET_PATTERNS) {
    out = out.replace(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : pattern.flags + 'g'), `[redacted: ${kind}]`);
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
