/** The bun binary the `bun` npm package ships in its platform package (its postinstall, which only links it, is not run). */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const PLATFORM_PACKAGES: Readonly<Record<string, string>> = {
  'linux-x64': '@oven/bun-linux-x64',
  'linux-arm64': '@oven/bun-linux-aarch64',
  'darwin-x64': '@oven/bun-darwin-x64',
  'darwin-arm64': '@oven/bun-darwin-aarch64',
};

export function bunBinary(): string {
  const platformPackage = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (platformPackage === undefined) throw new Error(`no bun binary for ${process.platform}-${process.arch}`);
  const fromBun = createRequire(createRequire(import.meta.url).resolve('bun/package.json'));
  return join(dirname(fromBun.resolve(`${platformPackage}/package.json`)), 'bin', 'bun');
}
