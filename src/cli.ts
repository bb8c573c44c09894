// The command line: global flags, every command of the command table (src/entries/commands.ts,
// so `wmem --help` and the code read the same), handlers imported lazily (`wmem context` runs on
// every prompt), and the one place that turns errors into exit codes.
import { Command, CommanderError, Option } from 'commander';
import { WmemError, EXIT } from './ui/errors.js';
import { buildRunContext, printResult, reportError, type GlobalFlags } from './entries/runtime.js';
import { writeStdout } from './entries/stdout.js';
import { COMMANDS, type CommandSpec, type HelpText } from './entries/commands.js';
import { GLOBAL_OPTIONS, VERSION, coerceOption, type OptionSpec } from './options.js';
import * as registry from './agents/registry.js';

export { VERSION } from './options.js';

/** Declares an option from a table (src/options.ts, src/entries/commands.ts). */
function addSpec(cmd: Command, spec: OptionSpec<HelpText>): Command {
  const option = new Option(spec.flags, helpText(spec.description));
  if (spec.choices) option.choices(spec.choices);
  if (spec.intMin !== undefined) option.argParser((value: string) => coerceOption(spec, value));
  if (spec.repeatable) option.argParser((value: string, previous: string[] = []) => [...previous, value]);
  if (spec.default !== undefined) option.default(spec.default);
  if (spec.mandatory) option.makeOptionMandatory();
  if (spec.hidden) option.hideHelp();
  return cmd.addOption(option);
}

function helpText(text: HelpText): string {
  return typeof text === 'string' ? text : text(registry);
}

/** A row of the command table as a commander command whose action loads and runs its module. */
function declare(program: Command, spec: CommandSpec): void {
  const cmd = program.command(spec.name).description(spec.summary);
  for (const arg of spec.args ?? []) cmd.argument(arg.name, helpText(arg.description), arg.default);
  for (const option of spec.options ?? []) addSpec(cmd, option);
  cmd.action(async (...params: unknown[]) => {
    const command = params[params.length - 1] as Command;
    const options = command.optsWithGlobals() as Record<string, unknown> & GlobalFlags;
    const args = params.slice(0, -2);
    const ctx = await buildRunContext(options);
    const { run } = await spec.load();
    printResult(await run(options, ctx, args), ctx);
  });
}

export function buildProgram(): Command {
  const program = new Command('wmem');
  program
    .description('Working memory in plain files for LLM coding agents.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run wmem --help for usage)')
    .exitOverride()
    // Help on stdout as every command's output goes (a broken pipe is then an error reportError
    // knows, not a stream's unhandled 'error' event); one voice for every error: commander's own
    // messages get wmem's prefix too.
    .configureOutput({ writeOut: (s) => writeStdout(s), writeErr: (s) => process.stderr.write(s.replace(/^error: /, 'wmem: ')) });
  for (const spec of GLOBAL_OPTIONS) addSpec(program, spec);
  for (const spec of COMMANDS) declare(program, spec);
  return program;
}

/**
 * Text such as a Markdown list item ("- done: x") starts with a dash but holds whitespace, so it
 * can never be a flag; mark it so commander takes it as an argument. `textFromArgs` unmarks it.
 */
export const TEXT_MARK = '\u2060';
function protectTextArguments(argv: string[]): string[] {
  return argv.map((arg, i) => (i >= 2 && /^-[^-]?.*\s/s.test(arg) && !/^--?[A-Za-z][\w-]*=/.test(arg) ? TEXT_MARK + arg : arg));
}

export async function run(argv: string[]): Promise<void> {
  const isHook = argv[2] === 'hook';
  try {
    await buildProgram().parseAsync(protectTextArguments(argv));
  } catch (err) {
    if (err instanceof CommanderError) {
      const clean = err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help';
      process.exitCode = clean ? EXIT.ok : isHook ? EXIT.ok : EXIT.usage;
      return;
    }
    if (err instanceof WmemError && err.exitCode === EXIT.usage && (err as Error).cause === undefined && isHook) {
      process.exitCode = EXIT.ok;
      return;
    }
    reportError(err);
  }
}
