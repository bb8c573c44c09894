// What every use case is given besides its own options: where things live and the clock. The
// CLI's RunContext is one (it adds printing); the hook driver and, later, the MCP server build
// their own. Use cases return result objects: no printing, no exit codes, no CLI library.
import type { Where } from '../store/session.js';

export interface AppEnv extends Where {
  now: () => Date;
  /**
   * A diagnostic as it happens, in long operations where it must not wait for the result (the
   * CLI prints it on stderr; other hosts may log or drop it). Results carry the rest.
   */
  warn?: (message: string) => void;
}
