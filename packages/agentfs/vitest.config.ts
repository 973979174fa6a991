import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'agentfs',
    include: ['src/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    globalSetup: ['../../scripts/check-built.ts'],
  },
  resolve: { conditions: ['source'] },
});
