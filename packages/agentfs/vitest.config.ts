import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'agentfs', include: ['src/**/*.test.ts'] },
  resolve: { conditions: ['source'] },
});
