import { sharedConfig } from '@agentd/vitest-config';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  ...sharedConfig,
  test: {
    ...sharedConfig.test,
    include: [
      'packages/*/src/**/*.test.ts',
      'apps/*/src/**/*.test.ts',
      'apps/*/test/**/*.test.ts',
      'tooling/*/src/**/*.test.ts',
    ],
    benchmark: {
      include: ['packages/*/src/**/*.bench.ts', 'apps/*/src/**/*.bench.ts'],
    },
  },
});
