// The pinned Factory Droid CLI: the npm package `droid` pulls the native binary for this machine
// from its platform package (@factory/cli-<os>-<arch>); its postinstall (which copies that binary
// next to the JS launcher) is skipped and the platform binary runs as is.
import path from 'node:path';
import { ensureNpmClient } from './install-npm-client.js';

export const DROID_VERSION = '0.215.0';

/** Droid's switches that keep it off its vendor's servers (no update check, no telemetry). */
export const DROID_OFFLINE_ENV = { FACTORY_AIRGAP_ENABLED: '1', OTEL_SDK_DISABLED: 'true', FACTORY_DROID_AUTO_UPDATE_ENABLED: 'false' };

export function ensureDroid(log?: (line: string) => void): Promise<string> {
  return ensureNpmClient(
    {
      folder: `droid-${DROID_VERSION}`,
      spec: `droid@${DROID_VERSION}`,
      binary: (dir) => path.join(dir, 'node_modules', '@factory', `cli-${process.platform}-${process.arch}`, 'bin', 'droid'),
      version: (printed) => printed.includes(DROID_VERSION),
      env: DROID_OFFLINE_ENV,
    },
    log,
  );
}
