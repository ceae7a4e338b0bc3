import { defineConfig } from 'vitest/config';

// Three tiers (STYLE.md): unit tests beside the source with fakes; integration tests against real
// PostgreSQL, Redis and NATS; end-to-end tests against the whole system started as `npm start` does.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{packages,services,gateway}/**/src/**/*.test.ts', 'gateway/src/**/*.test.ts', 'scripts/*.test.ts'],
          exclude: ['**/node_modules/**', '**/dist/**'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['{packages,services}/**/test/integration/**/*.test.ts', 'gateway/test/integration/**/*.test.ts'],
          exclude: ['**/node_modules/**', '**/dist/**'],
          globalSetup: ['packages/platform/dist/testing/global-setup.js'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['packages/platform/dist/testing/global-setup.js', 'test/e2e/system.setup.ts'],
          // Every test file signs its gRPC calls to the system's services with the system's key.
          setupFiles: ['test/e2e/service-calls.setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
