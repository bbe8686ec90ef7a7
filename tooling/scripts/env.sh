# Pinned tool versions shared by the README commands (sourced, not run).
export PNPM_VERSION=12.4.2
export NODE_LTS_VERSION=24.21.0
export NODE_CONFORMANCE_VERSION=22.23.3
export TURBO_TELEMETRY_DISABLED=1
export TURBO_NO_UPDATE_NOTIFIER=1
export DO_NOT_TRACK=1
# The pins are deliberate: no "update available" banners in CI logs.
export npm_config_update_notifier=false
pnpm() { npx -y "pnpm@${PNPM_VERSION}" "$@"; }
