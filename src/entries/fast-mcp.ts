// The lean entry for `wmem mcp`: a client starts the server and asks for its tools at once, so
// the first answers come from the build-time manifest (src/mcp/front.ts) while the SDK server
// loads (dist/mcp/server.js). Anything it does not take exactly (help, a typo, a missing
// manifest) returns false, and bin/wmem.js hands the whole command line to the full CLI.
import { readFileSync } from 'node:fs';
import { GLOBAL_OPTIONS } from '../options.js';
import { buildRunContext, type GlobalFlags } from './runtime.js';
import { leanOptions, parseLean } from './lean-args.js';
import { guardProcess, runFront } from '../mcp/front.js';
import type { Manifest } from '../mcp/manifest.js';

export async function runMcp(argv: string[]): Promise<boolean> {
  const parsed = parseLean(argv.slice(2), GLOBAL_OPTIONS);
  if (!parsed || parsed.positionals.length !== 1 || parsed.positionals[0] !== 'mcp') return false;
  const options = leanOptions(GLOBAL_OPTIONS, parsed.values, true);
  if (!options) return false;
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(new URL('../mcp/manifest.json', import.meta.url), 'utf8')) as Manifest;
  } catch {
    return false;
  }
  let ctx;
  try {
    ctx = await buildRunContext(options as GlobalFlags, { plain: true });
  } catch {
    return false; // the full CLI explains a bad --home or --session
  }
  // A stray console.log from any module would corrupt the protocol stream.
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  const log = (message: string) => process.stderr.write(message.endsWith('\n') ? message : message + '\n');
  guardProcess(log);
  const scope = { where: ctx, now: ctx.now, bin: process.argv[1], log };
  await runFront({
    manifest,
    input: process.stdin,
    write: (line) => process.stdout.write(line),
    load: async (transport) => {
      const { startServer } = await import('../mcp/server.js');
      return startServer(scope, transport as never);
    },
    log,
  });
  return true;
}
