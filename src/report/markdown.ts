// Markdown (the overview) as HTML for the report: parsed into a tree by remark, turned into an
// HTML tree and serialised. Raw HTML in the Markdown is dropped (never passed through) and every
// text is escaped by the serialiser, so nothing in memory can become markup or script.
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import { toHast } from 'mdast-util-to-hast';
import { toHtml } from 'hast-util-to-html';
import matter from 'gray-matter';

type HastNode = { type: string; tagName?: string; properties?: Record<string, unknown>; children?: HastNode[] };

/** Only web, mail and relative link targets stay (a javascript: URL would be inert under the page's policy, but goes). */
const SAFE_URL = /^(?:https?:|mailto:|#|\/|\.{1,2}\/|[\w.-]+(?:[/#?]|$))/i;

function sanitizeLinks(node: HastNode): void {
  for (const key of ['href', 'src']) {
    const value = node.properties?.[key];
    if (typeof value === 'string' && !SAFE_URL.test(value)) node.properties![key] = '#';
  }
  for (const child of node.children ?? []) sanitizeLinks(child);
}

export function markdownToHtml(markdown: string): string {
  const body = matter(markdown).content;
  const tree = unified().use(remarkParse).parse(body);
  const hast = toHast(tree, { allowDangerousHtml: false });
  sanitizeLinks(hast as unknown as HastNode);
  return toHtml(hast);
}
