// Pure: the tests every JSON reader in wmem needs (config files, hook input, history lines).

/** A plain JSON object: not null, not a list. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A table's own entry for a key that comes from outside (a hook's tool name, a heading, a command
 * argument): a key every object inherits (constructor, __proto__, toString) is no entry, where
 * `table[key]` would give Object's own function or prototype.
 */
export function entryOf<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
