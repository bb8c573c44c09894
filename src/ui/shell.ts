// Pure: words for sh, as wmem writes them into hook commands and hints.

/** `'/usr/bin/node' '/opt/wmem/bin/wmem.js'` style quoting for sh, only where needed. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_\/.,:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
