/**
 * How long a merchant on a phone waits for the dashboard's first payment row,
 * measured in Debian's Chromium: Lighthouse's "Fast 3G" with the CPU slowed
 * 4×, from the navigation's start (the page's time origin) to the first row
 * of the payments table, read in the page itself. Shared by the benchmark
 * (bench/dashboard/run.ts, which records the figures) and the suite's guard
 * (test/dashboard/budget.test.ts, which only catches a gross regression: a
 * time depends on the host, and a suite must not fail by the host's speed).
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';

/** The goal promised to merchants on a phone: the first payment row within 3 s. */
export const FIRST_ROW_GOAL_MS = 3_000;

/** Lighthouse's mobile "Fast 3G" (the DevTools preset of the same name): 150 ms RTT × 3.75, 1.6 Mbit/s × 0.9 down, 750 kbit/s × 0.9 up. */
export const FAST_3G = {
  offline: false,
  latency: 150 * 3.75,
  downloadThroughput: (1.6 * 1024 * 0.9 * 1024) / 8,
  uploadThroughput: (750 * 0.9 * 1024) / 8,
};
export const CPU_SLOWDOWN = 4;

/** CPU time counters of the whole host (Linux /proc/stat): idle (idle + iowait) and total. */
function cpuTimes(): { idle: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { idle: fields[3]! + (fields[4] ?? 0), total: fields.reduce((sum, value) => sum + value, 0) };
}

/**
 * The share of the host's CPU busy over the next two seconds, while the
 * caller does nothing: what the throttled page would compete with (the
 * current use, not the 1-minute load average, which remembers what ran before).
 */
export async function hostBusyShare(): Promise<number> {
  const before = cpuTimes();
  await sleep(2_000);
  const after = cpuTimes();
  return 1 - (after.idle - before.idle) / Math.max(1, after.total - before.total);
}

export interface Loaded {
  url: string;
  type: string;
  /** Bytes over the wire: headers and the (compressed) body. */
  transferred: number;
  encoding: string | undefined;
}

/** Every response the page loads, with what it cost on the wire (Chromium's own count). */
export async function recordNetwork(cdp: CDPSession): Promise<Loaded[]> {
  const responses = new Map<string, Omit<Loaded, 'transferred'>>();
  const loaded: Loaded[] = [];
  cdp.on('Network.responseReceived', (event) => {
    const headers = Object.fromEntries(Object.entries(event.response.headers).map(([name, value]) => [name.toLowerCase(), String(value)]));
    responses.set(event.requestId, { url: event.response.url, type: event.type ?? 'Other', encoding: headers['content-encoding'] });
  });
  cdp.on('Network.loadingFinished', (event) => {
    const response = responses.get(event.requestId);
    if (response) loaded.push({ ...response, transferred: event.encodedDataLength });
  });
  await cdp.send('Network.enable');
  return loaded;
}

export const short = (url: string) => url.replace(/^.*\/dashboard\//, '');
export const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

/**
 * Notes, in the page, when the first payment row is added to the document
 * (the frame it is painted in follows): a MutationObserver installed before
 * the app's scripts, so watching costs the page nothing between changes.
 */
function watchFirstRow() {
  // (This runs in the page; this file is type-checked without the DOM's types.)
  type Row = { textContent: string | null };
  const page = globalThis as unknown as {
    firstRow?: { at: number; text: string };
    document: { querySelector(selector: string): Row | null };
    MutationObserver: new (callback: () => void) => { observe(target: unknown, options: object): void; disconnect(): void };
  };
  const observer = new page.MutationObserver(() => {
    // The table's first row on a laptop, the compact list's first entry on a phone (ui/PagedTable.tsx).
    const row = page.document.querySelector('table[aria-label="Payments"] tbody tr, ul[aria-label="Payments"] li');
    if (!row) return;
    page.firstRow = { at: performance.now(), text: row.textContent ?? '' };
    observer.disconnect();
  });
  // The document itself: its <html> may not exist yet when this runs.
  observer.observe(page.document, { childList: true, subtree: true });
}

/** The log-in page, opened with the first-row watch installed for every later navigation, and the scripts it loaded. */
export async function openLoginPage(context: BrowserContext, baseUrl: string): Promise<{ page: Page; scripts: Loaded[] }> {
  const page = await context.newPage();
  await page.addInitScript(watchFirstRow);
  const cdp = await context.newCDPSession(page);
  const loaded = await recordNetwork(cdp);
  await page.goto(`${baseUrl}/dashboard/login`);
  await page.getByRole('button', { name: 'Log in' }).waitFor();
  // Whatever the page would fetch later on its own counts too.
  await page.waitForLoadState('networkidle');
  await cdp.detach();
  return { page, scripts: loaded.filter((response) => response.type === 'Script') };
}

/** Logs in through the page and waits for Home to settle: the cache as a log-in leaves it. */
export async function logInThroughPage(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('textbox', { name: 'Password' }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Home' }).waitFor();
  await page.waitForLoadState('networkidle');
}

export type FirstRowRun = Awaited<ReturnType<typeof timeFirstPaymentRow>>;

/**
 * Opens the payments list under Fast 3G and a 4× slower CPU; the time from
 * the navigation's start to the first payment row laid out, what each
 * request cost, and when each started and ended.
 */
export async function timeFirstPaymentRow(page: Page, paymentsUrl: string, options: { emptyCache: boolean }) {
  const cdp = await page.context().newCDPSession(page);
  const loaded = await recordNetwork(cdp);
  if (options.emptyCache) await cdp.send('Network.clearBrowserCache');
  await cdp.send('Network.emulateNetworkConditions', FAST_3G);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
  try {
    await page.goto(paymentsUrl, { waitUntil: 'commit' });
    const shown = await page.waitForFunction(() => (globalThis as unknown as { firstRow?: { at: number; text: string } }).firstRow, undefined, { polling: 100, timeout: 30_000 });
    const { at, text } = (await shown.jsonValue())!;
    // Where the time went: each request's start and end since the navigation started (Resource Timing).
    const waterfall = await page.evaluate(() => {
      const { performance } = globalThis as unknown as { performance: { getEntriesByType(type: string): { name: string; startTime: number; responseEnd: number; domContentLoadedEventEnd?: number }[] } };
      const navigation = performance.getEntriesByType('navigation')[0];
      return [
        `document 0-${Math.round(navigation?.responseEnd ?? 0)} (DOMContentLoaded ${Math.round(navigation?.domContentLoadedEventEnd ?? 0)})`,
        ...performance.getEntriesByType('resource').map((entry) => `${entry.name.replace(/^.*\/(assets|trpc)\//, '').replace(/\?.*/, '')} ${Math.round(entry.startTime)}-${Math.round(entry.responseEnd)}`),
      ];
    });
    await page.waitForLoadState('networkidle');
    return { ms: Math.round(at), firstRow: text, loaded: [...loaded], waterfall };
  } finally {
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await cdp.detach();
  }
}

/** The tRPC calls a run made, by procedure name, in order. */
export const apiCalls = (run: FirstRowRun) => run.loaded.filter((r) => r.url.includes('/internal/trpc/')).map((r) => r.url.replace(/^.*trpc\//, '').replace(/\?.*/, ''));

/** One run in two lines: the time and what was loaded, then the waterfall. */
export function describeRun(label: string, run: FirstRowRun): string {
  const scripts = run.loaded.filter((r) => r.type === 'Script');
  return (
    `${label}: first payment row after ${run.ms} ms (goal ${FIRST_ROW_GOAL_MS} ms); ` +
    `${run.loaded.length} responses, ${kB(run.loaded.reduce((sum, r) => sum + r.transferred, 0))} over the wire, ` +
    `scripts ${kB(scripts.reduce((sum, r) => sum + r.transferred, 0))} (${scripts.map((s) => short(s.url)).join(', ') || 'all from cache'}), ` +
    `API calls: ${apiCalls(run).join(', ')}\n` +
    `${label}, requests (ms since the navigation started): ${run.waterfall.join('; ')}`
  );
}
