import { defineConfig } from 'vitest/config';

/** One run over every workspace project; isolates need --no-node-snapshot on Node 20+. */
export default defineConfig({
  test: {
    reporters: ['default', './scripts/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'repo', include: ['scripts/**/*.test.ts'] },
      },
      'packages/*/vitest.config.ts',
      'apps/*/vitest.config.ts',
    ],
    pool: 'forks',
    globalSetup: ['./scripts/check-built.ts', './scripts/leftover-processes.ts'],
    execArgv: ['--no-node-snapshot'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
  resolve: { conditions: ['source'] },
});
