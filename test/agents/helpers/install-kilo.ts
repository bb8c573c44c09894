// The pinned Kilo Code CLI: the npm registry has the linux binary package of @kilocode/cli only up
// to 7.7.9 (the 7.8.1 wrapper names platform packages that were never published), so the
// platform package itself is installed and its binary runs as is.
import path from 'node:path';
import { ensureNpmClient } from './install-npm-client.js';

export const KILO_VERSION = '7.7.9';

export function ensureKilo(log?: (line: string) => void): Promise<string> {
  const platform = `cli-${process.platform}-${process.arch}`;
  return ensureNpmClient(
    {
      folder: `kilo-${KILO_VERSION}`,
      spec: `@kilocode/${platform}@${KILO_VERSION}`,
      binary: (dir) => path.join(dir, 'node_modules', '@kilocode', platform, 'bin', 'kilo'),
      version: (printed) => printed === KILO_VERSION,
    },
    log,
  );
}
