// What every MCP tool and resource acts on: where memory lives, the folder the server was
// started in and the session it was asked for (resolved again on each call, so a session the
// agent's hooks create after the server started is found), and how a failure becomes tool text.
import path from 'node:path';
import type { Where } from '../store/session.js';
import type { AppEnv } from '../app/env.js';
import { sessionsRoot } from '../store/project.js';
import { WmemError } from '../ui/errors.js';

export interface McpScope {
  where: Where;
  now: () => Date;
  /** The wmem entry script, for the background finishing of a quick compaction. */
  bin?: string;
  /** A diagnostic line for stderr or the log (never stdout: that is the protocol's). */
  log: (message: string) => void;
}

/** What a use case is given (src/app/env.ts): the scope's place and clock; its diagnostics go to the log. */
export function appEnv(scope: McpScope): AppEnv {
  const { home, cwd, sessionFlag, env } = scope.where;
  return { home, cwd, sessionFlag, env, now: scope.now, warn: scope.log };
}

/** The same two lines the CLI prints on stderr for this error. */
export function errorText(err: WmemError): string {
  return `wmem: ${err.message}${err.hint ? `\n  ${err.hint}` : ''}`;
}

/**
 * An error naming the session is the one an agent can least act on without knowing which folder
 * the server looked in: name the working folder, the memory folder, and the way out.
 */
export function sessionHelp(err: WmemError, scope: McpScope): string | undefined {
  if (!/^(no session for|unknown session)/.test(err.message)) return undefined;
  const { cwd, home } = scope.where;
  return (
    `wmem mcp serves the current session of the folder it was started in (${path.resolve(cwd)}), looked up under ${sessionsRoot(home)}. ` +
    "Start the server from the project's folder (or with --cwd DIR), pass --session ID, or run 'wmem init' in that folder; it never creates a session by itself."
  );
}

/** What a client is told of a refusal: the CLI's lines, and where the server looked for a session when that is the trouble. */
export function refusalText(err: WmemError, scope: McpScope): string {
  const help = sessionHelp(err, scope);
  return errorText(err) + (help ? `\n  ${help}` : '');
}
