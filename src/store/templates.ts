// Where the shipped templates are: beside dist/ when bundled, two levels up from src/ in tests.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { usageError } from '../ui/errors.js';

let cached: string | undefined;

export function templatesDir(): string {
  if (cached) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = path.join(dir, 'templates');
    if (existsSync(path.join(candidate, 'overview.md'))) return (cached = candidate);
    dir = path.dirname(dir);
  }
  throw new Error('wmem templates/ folder not found beside the installed package');
}

export function readTemplate(name: string): string {
  return readFileSync(path.join(templatesDir(), name), 'utf8');
}

export function overviewTemplateName(lang: string): string {
  if (lang === 'en') return 'overview.md';
  if (lang === 'zh') return 'overview.zh.md';
  throw usageError(`unknown --lang ${JSON.stringify(lang)}`, 'use en or zh');
}
