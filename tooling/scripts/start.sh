#!/usr/bin/env bash
# Sets everything up from a clean clone and starts agentd on its embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tooling/scripts/env.sh

pnpm install --frozen-lockfile >&2
pnpm turbo run build --filter=@agentd/agentd... --output-logs=errors-only >&2
exec node apps/agentd/dist/cli.js "$@"
