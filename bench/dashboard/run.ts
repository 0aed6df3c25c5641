/**
 * `npm run bench:dashboard [-- runs]`: the dashboard on a slow phone, as a
 * merchant opens it. Starts the production build (`dist/main.js`, as
 * `npm start` runs it) on a fresh embedded database with its demo, makes 30
 * payments with the demo key, logs in through the page in Debian's Chromium,
 * then opens the payments list `runs` times (default 7) with the cache the
 * log-in left and `runs` times with an empty cache, on Fast 3G with a 4×
 * slower CPU (bench/dashboard/first-row.ts). Prints each time, the median and
 * the worst against the 3 s goal, the host's busy share before each run, and
 * the waterfall of the median run. Figures worth recording (a quiet host) go in bench/RESULTS.md by hand.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describeRun, FIRST_ROW_GOAL_MS, hostBusyShare, logInThroughPage, openLoginPage, timeFirstPaymentRow, type FirstRowRun } from './first-row';

const runs = Number(process.argv[2] ?? 7);
if (!Number.isInteger(runs) || runs < 1) throw new Error(`runs must be a positive integer, not ${process.argv[2]}`);

/** The service's `listening` JSON line: where it listens and the files holding the demo's key and password. */
interface Listening {
  url: string;
  files: { demoApiKey: string; demoDashboardPassword: string };
}

function startService(dataDir: string): Promise<{ listening: Listening; stop: () => void }> {
  const child = spawn(process.execPath, ['dist/main.js'], { env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', LOG_FORMAT: 'json', LOG_LEVEL: 'warn', SHUTDOWN_DRAIN_MS: '0' } });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((l) => l.includes('"msg":"listening"'));
      if (line) resolve({ listening: JSON.parse(line) as Listening, stop: () => child.kill('SIGTERM') });
    });
    child.on('exit', (code) => reject(new Error(`the service exited with ${code}:\n${output}`)));
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const dataDir = mkdtempSync(join(tmpdir(), 'bench-dashboard-'));
const service = await startService(dataDir);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const { url, files } = service.listening;
  const apiKey = readFileSync(files.demoApiKey, 'utf8').trim();
  const auth = (await (await fetch(`${url}/v1/auth/test`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { environment: { id: string } };
  for (let i = 1; i <= 30; i++) {
    const created = await fetch(`${url}/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ externalId: `bench-order-${i}`, amount: 1000 + i, method: 'pix', customer: { name: 'Maria Silva', email: 'maria@example.com', document: '123.456.789-09' } }),
    });
    if (created.status !== 201) throw new Error(`creating a payment answered ${created.status}: ${await created.text()}`);
  }
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const { page } = await openLoginPage(context, url);
  await logInThroughPage(page, 'demo@example.com', readFileSync(files.demoDashboardPassword, 'utf8').trim());
  const paymentsUrl = `${url}/dashboard/e/${auth.environment.id}/payments`;

  for (const emptyCache of [false, true]) {
    const label = emptyCache ? 'empty cache' : 'cache as the log-in left it';
    const measured: { run: FirstRowRun; busy: number }[] = [];
    for (let i = 0; i < runs; i++) {
      const busy = await hostBusyShare();
      const run = await timeFirstPaymentRow(page, paymentsUrl, { emptyCache });
      if (!run.firstRow.includes('bench-order-30')) throw new Error(`the first row is not the newest payment: ${run.firstRow}`);
      measured.push({ run, busy });
      console.log(`${label}, run ${i + 1}: ${run.ms} ms (host ${Math.round(busy * 100)}% busy before)`);
    }
    const times = measured.map((m) => m.run.ms);
    const mid = median(times);
    console.log(`\n${label}: median ${mid} ms, worst ${Math.max(...times)} ms over ${runs} runs (goal ${FIRST_ROW_GOAL_MS} ms: ${mid <= FIRST_ROW_GOAL_MS ? 'met' : 'not met'})`);
    console.log(describeRun(`${label}, the median run`, measured.find((m) => m.run.ms === mid)!.run), '\n');
  }
} finally {
  await browser.close();
  service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
