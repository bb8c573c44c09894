// The pinned Amp CLI, for its own `amp mcp list` (wmem registers with Amp through MCP only: Amp
// runs inference on its vendor's servers, so no mock can stand in for its model). The npm package
// @ampcode/cli pulls its native binary from a platform package; that package is installed by
// itself and its binary runs as is.
import path from 'node:path';
import { ensureNpmClient } from './install-npm-client.js';

export const AMP_VERSION = '0.0.1790142911-g7618fb';

export function ensureAmp(log?: (line: string) => void): Promise<string> {
  const platform = `cli-${process.platform}-${process.arch}`;
  return ensureNpmClient(
    {
      folder: `amp-${AMP_VERSION}`,
      spec: `@ampcode/${platform}@${AMP_VERSION}`,
      binary: (dir) => path.join(dir, 'node_modules', '@ampcode', platform, 'amp'),
      version: (printed) => printed.startsWith(AMP_VERSION),
    },
    log,
  );
}
