// `wmem show [overview|scratch|meta|messages|detail/NAME|archive/NAME]`: prints a memory file
// (src/app/show.ts finds and reads it).
import { showFile } from '../app/show.js';
import type { CommandResult, RunContext } from './run.js';

export async function run(_options: unknown, ctx: RunContext, args: unknown[]): Promise<CommandResult> {
  const result = await showFile({ file: String(args[0] ?? 'overview') }, ctx);
  if ('files' in result) {
    const { session, folder, files } = result;
    return { data: { session, folder, files }, text: files.map((n) => `${result.relative}/${n}`).join('\n') };
  }
  return { data: result, text: result.content.replace(/\n$/, '') };
}
