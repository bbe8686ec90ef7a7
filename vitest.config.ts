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
      'examples/*/*.test.ts',
    ],
    // Type tests (`*.test-d.ts`, expectTypeOf) run with the suite: vitest runs tsc over them.
    typecheck: {
      enabled: true,
      include: ['packages/*/src/**/*.test-d.ts'],
      tsconfig: './tsconfig.typecheck.json',
    },
    benchmark: {
      include: ['packages/*/src/**/*.bench.ts', 'apps/*/src/**/*.bench.ts'],
    },
  },
});
