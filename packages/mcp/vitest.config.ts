import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'mcp',
    include: ['src/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['../../scripts/check-built.ts'],
    execArgv: ['--no-node-snapshot'],
  },
  resolve: { conditions: ['source'] },
});
