// The browser tests' shared set-up: Debian's headless Chromium through playwright-core (never a
// downloaded browser), and a watch that turns every console error, page error, failed request and
// HTTP error into a test failure.
import { mkdirSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Screenshots of the browser tests (gitignored). */
export const ARTIFACTS = fileURLToPath(new URL('../../../../test-artifacts/', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Launches headless Chromium for this test; it is closed when the test ends, whatever happens. */
export async function launchBrowser(t: TestContext): Promise<Browser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  t.after(() => browser.close());
  return browser;
}

/** Collects every console error, page error, failed request and HTTP error; each is also printed at once, so a timeout shows its cause. */
export function watchForErrors(page: Page, report: (line: string) => void): string[] {
  const errors: string[] = [];
  const add = (line: string) => {
    errors.push(line);
    report(line);
  };
  page.on('console', (m) => m.type() === 'error' && add(`console: ${m.text()}`));
  page.on('pageerror', (e) => add(`page error: ${e.message}`));
  page.on('requestfailed', (r) => add(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => r.status() >= 400 && add(`HTTP ${r.status()} ${r.url()}`));
  return errors;
}
