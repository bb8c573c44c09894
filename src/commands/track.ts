// Placeholder until this command is built: it refuses clearly rather than pretending.
import { WmemError } from '../ui/errors.js';
import type { CommandResult } from '../ui/run.js';

export async function run(): Promise<CommandResult> {
  throw new WmemError('wmem track is not built yet', { exitCode: 1 });
}

