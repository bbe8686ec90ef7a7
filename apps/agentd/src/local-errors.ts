/**
 * Every code of the LocalErrors agentd throws. They never cross the wire as such: operations
 * report them as tool errors with the code in the text, the CLI prints them, start-up logs them.
 */

/** Refusals and bad requests of the Supervisor (spawn, send, cancel, drain, reconfigure). */
type SupervisorErrorCode =
  | 'unknown_agent'
  | 'unknown_handle'
  | 'limit_reached'
  | 'paused'
  | 'draining'
  | 'not_warm'
  | 'busy'
  | 'output_too_large'
  | 'session_closed'
  | 'invalid_request'
  | 'aborted'
  /** A permission request that was already answered (by the policy, a caller, an operator, the timeout). */
  | 'already_decided'
  /** No pending permission request with that id on the run. */
  | 'unknown_request';

/** Why the daemon cannot start, or cannot apply a configuration. */
type DaemonErrorCode =
  /** A config file, environment variable or flag is invalid (every issue is listed). */
  | 'invalid_config'
  /** The socket's runtime directory is not a directory owned by this user. */
  | 'unsafe_runtime_dir'
  | 'address_in_use'
  | 'address_unavailable';

/** A fleet (the `cluster` config block) that cannot reach, or use, its shared Redis. */
type ClusterErrorCode =
  | 'redis_unreachable'
  | 'cluster_unavailable'
  /** A turn for a warm session that lives on another replica. */
  | 'remote_session';

/** The operator CLI's own failures (the daemon's refusals are printed as they come). */
type ClientErrorCode =
  /** Bad command line (exit 2). */
  | 'usage'
  /** No daemon at the socket or URL, or the connection dropped. */
  | 'daemon_unreachable'
  /** The daemon refused the connection (HTTP 401/403): a token is missing or wrong. */
  | 'daemon_refused'
  /** An answer that is not an MCP answer (a proxy's page, a stream cut short). */
  | 'bad_answer'
  /** Where to connect cannot be worked out (unreadable token file, a config without a reachable target). */
  | 'no_endpoint';

/** The run store (src/history/): only opening it can fail; after that it reports and carries on. */
type HistoryErrorCode =
  /** Another agentd (named by pid) holds the store's lock. */
  'store_locked';

/** A run's workspace (src/workspace/) that cannot be made. */
type WorkspaceErrorCode =
  /** The profile's `workspace.repo` does not exist. */
  | 'repo_missing'
  | 'not_a_git_repo'
  /** The run's branch `agentd/<runId>` already exists in the repository. */
  | 'branch_exists'
  /** No space left on the device (ENOSPC) while making or summarising a workspace. */
  | 'disk_full'
  /** A spawn's directory resolves outside the profile's allowed root. */
  | 'workspace_escape'
  /** `workspace.maxLive` live workspaces of the repository already. */
  | 'workspace_limit'
  /** Any other failure of git or the file system, with its message. */
  | 'workspace_failed';

export type AgentdErrorCode =
  | SupervisorErrorCode
  | DaemonErrorCode
  | ClusterErrorCode
  | ClientErrorCode
  | HistoryErrorCode
  | WorkspaceErrorCode;
