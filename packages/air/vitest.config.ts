import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'air', include: ['src/**/*.test.ts'], testTimeout: 60_000 },
  resolve: { conditions: ['source'] },
});
