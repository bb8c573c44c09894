// Debian's Chromium, headless, as this machine's network allows it: no background networking,
// no component updates, a fresh profile. playwright-core drives it; it never downloads a browser.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.WMEM_CHROMIUM ?? '/usr/bin/chromium';

export async function launch(): Promise<BrowserContext> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'wmem-chromium-'));
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
