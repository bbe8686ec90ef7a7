#!/usr/bin/env bash
# The whole test suite, from a clean clone with only Node 20 and npm:
# install, build, typecheck, lint and format, then every test on Node 20 and again on Node 24 LTS.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tooling/scripts/env.sh

pnpm install --frozen-lockfile
pnpm turbo run build typecheck
pnpm biome check .

echo "== tests on Node $(node --version)"
pnpm vitest run
echo "== tests on Node ${NODE_LTS_VERSION}"
npx -y -p "node@${NODE_LTS_VERSION}" node node_modules/vitest/vitest.mjs run
