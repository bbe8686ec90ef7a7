#!/usr/bin/env bash
# The whole test suite, from a clean clone with only Node 20 and npm: install, build, typecheck,
# lint and format, unused files/exports/dependencies (knip), then every test on this Node (20) and
# again on Node 24 LTS. Exits non-zero if any step fails; typecheck, lint and the two test runs all run even when one of them fails, so
# one CI run shows every problem. The release checks run inside the tests (tooling/scripts): every
# public package packed and checked by publint and attw, a `changeset version` dry run, and a
# bundled Code Mode server.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tooling/scripts/env.sh

failed_steps=()
run_step() {
  local name=$1
  shift
  local started=$SECONDS
  echo "== ${name}"
  if "$@"; then
    echo "== ${name}: ok ($((SECONDS - started))s)"
  else
    echo "== ${name}: FAILED ($((SECONDS - started))s)"
    failed_steps+=("${name}")
  fi
}

reports=$(mktemp -d)
trap 'rm -rf "${reports}"' EXIT

# Nothing below means anything without dependencies and a build: these two stop the run.
echo "== install"
pnpm install --frozen-lockfile
echo "== build"
pnpm turbo run build --output-logs=errors-only

run_step typecheck pnpm turbo run typecheck --output-logs=errors-only
run_step "lint and format (biome check .)" pnpm biome check .
run_step "unused files, exports and dependencies (knip)" pnpm knip
run_step "tests on Node $(node --version)" \
  node node_modules/vitest/vitest.mjs run \
  --reporter=default --reporter=json --outputFile="${reports}/node-current.json"
run_step "tests on Node v${NODE_LTS_VERSION}" \
  npx -y -p "node@${NODE_LTS_VERSION}" node node_modules/vitest/vitest.mjs run \
  --reporter=default --reporter=json --outputFile="${reports}/node-lts.json"

node tooling/scripts/vitest-summary.mjs "${reports}/node-current.json" "${reports}/node-lts.json"
if ((${#failed_steps[@]} > 0)); then
  printf 'failed: %s\n' "${failed_steps[@]}" >&2
  exit 1
fi
