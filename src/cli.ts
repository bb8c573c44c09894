// The command line: global flags, every command declared here (so `wmem --help` and the code
// read the same), handlers imported lazily (`wmem context` runs on every prompt), and the one
// place that turns errors into exit codes.
import { Command, CommanderError, Option } from 'commander';
import { WmemError, EXIT } from './ui/errors.js';
import type { CommandResult, RunContext } from './commands/run.js';
import { buildRunContext, printResult, reportError, type GlobalFlags } from './entries/runtime.js';
import { COMPACT_OPTIONS, CONTEXT_OPTIONS, GLOBAL_OPTIONS, SEARCH_OPTIONS, VERSION, coerceOption, type OptionSpec } from './options.js';
import { allScopes, defaultScopesHelp, knownAgents, mcpAgents } from './agents/registry.js';

export { VERSION } from './options.js';

type Handler = (options: Record<string, unknown>, ctx: RunContext, args: unknown[]) => Promise<CommandResult>;
type Loader = () => Promise<{ run: Handler }>;

function intOption(name: string, min = 0) {
  return (value: string) => coerceOption({ flags: `${name} <n>`, description: '', intMin: min }, value) as number;
}

/** Declares an option from the shared table (src/options.ts). */
function addSpec(cmd: Command, spec: OptionSpec): Command {
  const option = new Option(spec.flags, spec.description);
  if (spec.choices) option.choices(spec.choices);
  if (spec.intMin !== undefined) option.argParser((value: string) => coerceOption(spec, value));
  if (spec.default !== undefined) option.default(spec.default);
  if (spec.hidden) option.hideHelp();
  return cmd.addOption(option);
}

export function buildProgram(): Command {
  const program = new Command('wmem');
  program
    .description('Working memory in plain files for LLM coding agents.')
    .version(VERSION, '-V, --version')
    .showHelpAfterError('(run wmem --help for usage)')
    .exitOverride()
    // One voice for every error: commander's own messages get wmem's prefix too.
    .configureOutput({ writeErr: (s) => process.stderr.write(s.replace(/^error: /, 'wmem: ')) });

  for (const spec of GLOBAL_OPTIONS) addSpec(program, spec);

  const declare = (cmd: Command, loader: Loader) => {
    cmd.action(async (...params: unknown[]) => {
      const command = params[params.length - 1] as Command;
      const options = command.optsWithGlobals() as Record<string, unknown> & GlobalFlags;
      const args = params.slice(0, -2);
      const ctx = await buildRunContext(options);
      const { run } = await loader();
      printResult(await run(options, ctx, args), ctx);
    });
    return cmd;
  };

  declare(
    program
      .command('init')
      .description('create the session tree (never overwrites) and make it current')
      .option('--lang <lang>', 'template language: en or zh', 'en')
      .option('--template <file>', 'an overview.md template of your own')
      .option('--tokens-max <n>', 'the model\'s context window in tokens', intOption('--tokens-max', 1))
      .option('--new', 'start a new session even if the project has a current one')
      .option('--continue [id]', 'start a new session from an earlier one\'s task, progress, decisions, context and open questions (default: the most recent)'),
    () => import('./commands/init.js'),
  );
  const contextCommand = program.command('context').description('render what is injected into the agent: memory (stable) and meta (volatile)');
  for (const spec of CONTEXT_OPTIONS) addSpec(contextCommand, spec);
  declare(contextCommand, () => import('./commands/context.js'));
  declare(
    program
      .command('note')
      .description('append a note to scratch.md at once (- reads standard input)')
      .argument('<text...>', 'the note; - to read it from standard input')
      .option('--importance <x>', 'how much it matters, 0 to 1 (0.8 and up count as decisions)')
      .option('--tag <tag>', 'a tag (repeatable): the overview section it belongs under', (v: string, prev: string[] = []) => [...prev, v]),
    () => import('./commands/note.js'),
  );
  declare(
    program
      .command('set')
      .description('replace a section of overview.md (its max_chars enforced)')
      .argument('<section>', 'section id, e.g. task, progress, decisions')
      .argument('<text...>', 'the new content; - to read it from standard input'),
    () => import('./commands/set.js'),
  );
  declare(
    program
      .command('append')
      .description('append to a section of overview.md (its max_chars enforced)')
      .argument('<section>', 'section id')
      .argument('<text...>', 'the text to add; - to read it from standard input'),
    () => import('./commands/set.js').then((m) => ({ run: m.runAppend })),
  );
  declare(
    program
      .command('show')
      .description('print a memory file: overview, scratch, meta, messages, detail/NAME, archive/NAME')
      .argument('[file]', 'which file', 'overview'),
    () => import('./commands/show.js'),
  );
  declare(
    program
      .command('status')
      .description('the session\'s sizes, token use, pressure and whether the overview is maintained')
      .option('--tokens-used <n>', 'tokens used so far', intOption('--tokens-used'))
      .option('--tokens-max <n>', 'the context window (else meta.json)', intOption('--tokens-max', 1)),
    () => import('./commands/status.js'),
  );
  declare(program.command('sessions').description('the project\'s sessions'), () => import('./commands/sessions.js'));
  declare(
    COMPACT_OPTIONS.reduce(addSpec, program.command('compact').description('move old history out of messages.jsonl, losslessly')),
    () => import('./commands/compact.js'),
  );
  declare(
    program.command('restore').description('put what a compaction archived back into messages.jsonl').argument('<archive>', 'archive file (archive/messages-<stamp>.jsonl)'),
    () => import('./commands/restore.js'),
  );
  declare(
    program
      .command('consolidate')
      .description('fold scratch notes into overview.md')
      .option('--llm <cmd>', 'command that reads the synthesis prompt on stdin and prints the new overview')
      .option('--timeout <seconds>', 'how long the LLM command may take', intOption('--timeout', 1), 300)
      .option('--dry-run', 'print the new overview, change nothing'),
    () => import('./commands/consolidate.js'),
  );
  declare(
    SEARCH_OPTIONS.reduce(
      addSpec,
      program
        .command('search')
        .description('ranked hits across overview, scratch, detail, archive and workspace memory')
        .argument('<query...>', 'what to look for, in your own words'),
    ),
    () => import('./commands/search.js'),
  );
  declare(
    program
      .command('remember')
      .description('keep a fact in workspace memory, shared by the project\'s sessions')
      .argument('<text...>', 'the fact; - to read it from standard input')
      .addOption(new Option('--type <type>', 'kind of memory').choices(['feedback', 'project', 'decision', 'reference']).makeOptionMandatory())
      .addOption(new Option('--source <source>', 'where it comes from').choices(['explicit', 'manual']).default('explicit')),
    () => import('./commands/remember.js'),
  );
  declare(
    program.command('forget').description('remove a workspace memory entry').argument('<id>', 'entry id (see wmem memories)'),
    () => import('./commands/remember.js').then((m) => ({ run: m.runForget })),
  );
  declare(
    program.command('memories').description('list workspace memory as injected').option('--team', 'every entry, the team file\'s included, not only those injected'),
    () => import('./commands/remember.js').then((m) => ({ run: m.runList })),
  );
  declare(
    program
      .command('report')
      .description('one HTML page of what happened to the context: tokens over time, compactions, notes, errors, the overview')
      .option('--all', 'add a row per session of the project')
      .option('--out <file>', 'where to write it (- for standard output; default: report.html in the session folder)')
      .option('--open', 'open it in the default browser'),
    () => import('./commands/report.js'),
  );
  declare(
    program
      .command('share')
      .description('copy workspace memory into .wmem/memory.md, committed with the code, so the team\'s sessions see it')
      .argument('[ids...]', 'workspace entry ids (see wmem memories)')
      .option('--all', 'every workspace entry')
      .addOption(new Option('--type <type>', 'every entry of this type').choices(['feedback', 'project', 'decision', 'reference']))
      .option('--remove <id>', 'take an entry out of the team file')
      .option('--init', 'create the team file and the .gitattributes union-merge line')
      .option('--check', 'report duplicates, malformed lines, secrets, broken or future times (exit 1) and what is not injected: for CI')
      .option('--diff', 'show what the command would add, change and remove in the team file; write nothing'),
    () => import('./commands/share.js'),
  );
  declare(program.command('track').description('read a tool event (JSON on stdin) into hot session state'), () => import('./commands/track.js'));
  declare(
    program
      .command('prune')
      .description('filter a tool output (stdin → stdout); the full text goes to cache/')
      .addOption(new Option('--mode <mode>', 'how hard to cut').choices(['auto', 'normal', 'aggressive', 'hyper']).default('auto')),
    () => import('./commands/prune.js'),
  );
  declare(
    program
      .command('migrate')
      .description('bring in older layouts and other memories: legacy | memory-md FILE | opencode DIR')
      .argument('[kind]', 'legacy, memory-md or opencode', 'legacy')
      .argument('[path]', 'the file or folder to migrate')
      .option('--dry-run', 'list what would be done'),
    () => import('./commands/migrate.js'),
  );
  declare(
    program
      .command('sweep')
      .description('storage governance over every project under the home (for CI and cron)')
      .option('--max-files <n>', 'newest cache files to keep per project', intOption('--max-files'), 300)
      .option('--ttl <age>', 'delete cache files older than this (e.g. 7d, 12h)', '7d')
      .option('--dry-run', 'delete nothing, report what would go'),
    () => import('./commands/sweep.js'),
  );
  declare(
    program
      .command('rm')
      .description('delete a session on purpose')
      .argument('<session>', 'session id')
      .option('-y, --yes', 'do not ask'),
    () => import('./commands/rm.js'),
  );
  declare(
    program
      .command('hook')
      .description('answer an agent hook (JSON on stdin); never fails the agent')
      .argument('<event>', "the agent's event: SessionStart, UserPromptSubmit, PostToolUse, …")
      .option('--agent <id>', 'the agent whose hook this is (default claude)')
      .option('--tokens-max <n>', "the window of the agent's model in tokens (else looked up from the model)", intOption('--tokens-max', 1)),
    () => import('./commands/hook.js'),
  );
  declare(
    program
      .command('install')
      .description('merge wmem\'s hooks into an agent\'s settings')
      .argument('<agent>', `the agent: ${knownAgents()}`)
      .addOption(new Option('--scope <scope>', `which config file (default: the agent's own: ${defaultScopesHelp()})`).choices(allScopes()))
      .option('--tokens-max <n>', "your model's context window in tokens, for every session the hooks serve (default: looked up from the session's model)", intOption('--tokens-max', 1))
      .option('--mcp', `register the wmem MCP server (wmem mcp) in the agent's MCP config instead of the hooks (${mcpAgents()})`)
      .option('--dry-run', 'print the result, change nothing'),
    () => import('./commands/install.js'),
  );
  declare(
    program
      .command('uninstall')
      .description('remove only wmem\'s hooks from an agent\'s settings')
      .argument('<agent>', `the agent: ${knownAgents()}`)
      .addOption(new Option('--scope <scope>', `which config file (default: the agent's own: ${defaultScopesHelp()})`).choices(allScopes()))
      .option('--mcp', 'remove only the wmem MCP server from the agent\'s MCP config')
      .option('--dry-run', 'print the result, change nothing'),
    () => import('./commands/install.js').then((m) => ({ run: m.runUninstall })),
  );
  declare(
    program
      .command('mcp')
      .description("serve the session's working memory to an MCP client on stdio (tools and resources); see docs/mcp.md"),
    () => import('./commands/mcp.js'),
  );
  declare(program.command('off').description('turn wmem off for this project: every hook and wmem context do nothing (wmem on undoes it)'), () => import('./commands/switch.js').then((m) => ({ run: m.runOff })));
  declare(program.command('on').description('turn wmem back on for this project'), () => import('./commands/switch.js').then((m) => ({ run: m.runOn })));
  declare(program.command('doctor').description('are the hooks installed, runnable, and firing?'), () => import('./commands/doctor.js'));
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
