/**
 * The fast lane, `pnpm test:fast`: the whole suite of vitest.config.ts minus the slow tests, for
 * quick feedback while editing. `npm test` (and plain `vitest run`) still runs everything.
 * A test is slow by its name, never by a list: every test under an app's `test/` directory, and a
 * test beside code named `*.slow.test.ts` (it listens on or dials sockets, spawns processes — the
 * daemon, child servers, npm, tsc —, starts worker pools or a browser, or needs redis/nginx).
 */
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import full from './vitest.config.js';

const SLOW_TESTS = ['apps/*/test/**', '**/*.slow.test.ts'];

export default mergeConfig(
  full,
  defineConfig({ test: { exclude: [...configDefaults.exclude, ...SLOW_TESTS] } }),
);
