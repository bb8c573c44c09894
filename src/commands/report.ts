// `wmem report [--all] [--out FILE|-] [--open]`: thin glue over src/app/report.ts; --open hands
// the written page to the desktop's opener.
import { report, type ReportOptions } from '../app/report.js';
import { usageError } from '../ui/errors.js';
import type { CommandResult, RunContext } from './run.js';

export async function run(options: ReportOptions & { open?: boolean }, ctx: RunContext): Promise<CommandResult> {
  if (options.out === '-' && options.open) throw usageError('--open needs a file: it cannot open standard output', 'drop --open, or give --out FILE');
  const result = await report(options, ctx);
  if (result.file === undefined) return { data: { html: result.html }, text: result.html.replace(/\n$/, '') };
  if (options.open) await openInBrowser(result.file, ctx);
  return { data: result, text: ctx.quiet ? '' : result.file };
}

async function openInBrowser(file: string, ctx: RunContext): Promise<void> {
  const { execa } = await import('execa');
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  // A missing opener is only a warning: the report is written either way.
  const child = execa(opener, [file], { detached: true, stdio: 'ignore', reject: false });
  const started = await Promise.race([child.then((r) => !r.failed || r.exitCode !== undefined), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 300))]);
  if (!started) ctx.warn(`could not start ${opener}; open ${file} in a browser`);
  child.unref();
}
