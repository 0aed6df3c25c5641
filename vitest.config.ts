import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // `@service-payments/sdk` (the sdk workspace) resolves to its TypeScript source in the repository, never a stale build.
  ssr: { resolve: { conditions: ['@service-payments/source', ...defaultServerConditions] } },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
