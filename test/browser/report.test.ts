// A report made by the built CLI from a real transcript, opened from disk in real Chromium: the
// chart, the compaction marker and the notes are there; no console error and no request beyond
// the file itself; a note holding a script tag stays text (nothing runs); it fits 360 px without
// sideways scrolling and follows a dark colour scheme. A screenshot goes to the test's folder.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { runJson, sandbox, type Sandbox } from '../helpers/cli.js';
import { MARKUP_NOTE, reportSession } from '../helpers/report-session.js';
import { CHROMIUM, launch } from './chromium.js';

let box: Sandbox;
let browser: BrowserContext;
let file: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run test/browser/ensure-chromium.sh (installs Debian's chromium)`);
  box = await sandbox();
  await reportSession(box);
  file = (await runJson(box, ['report'])).file;
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await box?.cleanup();
});

async function open(options: { width?: number; dark?: boolean } = {}): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => requests.push(r.url()));
  page.on('dialog', (d) => {
    errors.push(`a dialog opened: ${d.message()}`);
    void d.dismiss();
  });
  await page.setViewportSize({ width: options.width ?? 1100, height: 900 });
  await page.emulateMedia({ colorScheme: options.dark ? 'dark' : 'light' });
  await page.goto(pathToFileURL(file).href);
  return { page, errors, requests };
}

it('shows the chart, the compaction and the notes, with no error and no request but the file', async () => {
  const { page, errors, requests } = await open();
  expect(await page.locator('svg.chart').count()).toBe(1);
  expect(await page.locator('svg.chart title#chart-title').textContent()).toMatch(/Context in use over \d+ requests/);
  expect(await page.locator('svg.chart polyline.tokens').count()).toBe(1);
  expect(await page.locator('svg.chart g.compaction').count()).toBe(1);
  expect(await page.locator('svg.chart a g.compaction').count()).toBe(1);
  expect(await page.locator('li.event.decision').first().textContent()).toContain('Chose git worktrees over clones');
  expect(await page.locator('li.event.error').count()).toBeGreaterThan(0);
  // The note that holds a script tag is shown as text, and nothing ran.
  expect(await page.locator('li.event.note .text', { hasText: 'alert(1)' }).first().textContent()).toBe(MARKUP_NOTE);
  expect(await page.locator('script').count()).toBe(0);
  expect(errors).toEqual([]);
  expect(requests).toEqual([pathToFileURL(file).href]);
  await page.screenshot({ path: path.join(box.root, 'report.png'), fullPage: true });
  // WMEM_SCREENSHOT=docs/report.png npm run test:browser  remakes the README's picture.
  if (process.env.WMEM_SCREENSHOT) await page.screenshot({ path: path.resolve(process.env.WMEM_SCREENSHOT), clip: { x: 0, y: 0, width: 1100, height: 900 } });
  expect(existsSync(path.join(box.root, 'report.png'))).toBe(true);
  await page.close();
});

it('fits 360 px without sideways scrolling, and follows a dark colour scheme', async () => {
  const narrow = await open({ width: 360 });
  const overflow = await narrow.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  const light = await narrow.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await narrow.page.close();
  const dark = await open({ dark: true });
  const background = await dark.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(background).not.toBe(light);
  expect(dark.errors).toEqual([]);
  await dark.page.screenshot({ path: path.join(box.root, 'report-dark.png') });
  await dark.page.close();
});
