// Pure: whether Gemini CLI trusts a project folder, so that it loads the project's hooks
// (docs/hooks.md). Gemini keeps the user's choices in `~/.gemini/trustedFolders.json`, `{"<path>":
// "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}`; the longest rule that contains the folder
// decides (TRUST_PARENT trusts the rule's parent folder), as in Gemini CLI 0.61's isPathTrusted.
// GEMINI_CLI_TRUST_WORKSPACE and an IDE can trust a folder too: doctor can only tell from the file.
import path from 'node:path';
import { isObject } from '../../ui/json.js';

export type FolderTrust = 'trusted' | 'distrusted' | 'unknown';

function inside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** What trustedFolders.json (its text; Gemini strips // comments, wmem reads plain JSON) says of `folder`. */
export function folderTrust(trustedFoldersText: string | undefined, folder: string): FolderTrust {
  if (!trustedFoldersText?.trim()) return 'unknown';
  let rules: unknown;
  try {
    rules = JSON.parse(trustedFoldersText);
  } catch {
    return 'unknown';
  }
  if (!isObject(rules)) return 'unknown';
  let best: { length: number; level: unknown } | undefined;
  for (const [rule, level] of Object.entries(rules)) {
    const effective = level === 'TRUST_PARENT' ? path.dirname(rule) : rule;
    if (!inside(path.resolve(effective), path.resolve(folder))) continue;
    if (!best || rule.length > best.length) best = { length: rule.length, level };
  }
  if (best?.level === 'DO_NOT_TRUST') return 'distrusted';
  if (best?.level === 'TRUST_FOLDER' || best?.level === 'TRUST_PARENT') return 'trusted';
  return 'unknown';
}
