import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'nvim',
    include: ['src/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['../../scripts/check-built.ts', './src/test-support/tools-setup.ts'],
    execArgv: ['--no-node-snapshot'],
  },
  resolve: { conditions: ['source'] },
});
