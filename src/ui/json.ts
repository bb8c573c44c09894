// Pure: the one test every JSON reader in wmem needs (config files, hook input, history lines).

/** A plain JSON object: not null, not a list. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
