import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

/** The dashboard budget test (test/dashboard/budget.test.ts): run in a group of its own, last. */
const BUDGET = 'test/dashboard/budget.test.ts';
/** The hanging-gateway test compares other traffic's latency during a hang with its own before: alone, before the budget. */
const HANGING_GATEWAY = 'test/routing/hanging-gateway.test.ts';

export default defineConfig({
  // `@service-payments/sdk` (the sdk workspace) resolves to its TypeScript source in the repository, never a stale build.
  ssr: { resolve: { conditions: ['@service-payments/source', ...defaultServerConditions] } },
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one file at a time on a 2-core machine (cores - 1). The files mostly wait on sockets,
    // child processes and Chromium: the 19 slowest took 289 s one at a time and 163 s two at a time on this quiet
    // 2-core machine (each file about 10% slower, all passing); three at a time on the busy machine pushed some
    // past their timeouts. `--maxWorkers=1` on the command line still runs them one at a time.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: [BUDGET, HANGING_GATEWAY] } },
      // Another file beside it would set the latencies it compares (its ratios were missed once with one running beside it).
      { extends: true, test: { name: 'latency', include: [HANGING_GATEWAY], sequence: { groupOrder: 1 } } },
      // The dashboard's time budgets are measured alone, after everything else: with other files running beside
      // it the host, not the page, would set the time (the 4× CPU throttle multiplies the host's own load).
      { extends: true, test: { name: 'budget', include: [BUDGET], sequence: { groupOrder: 2 } } },
    ],
  },
});
