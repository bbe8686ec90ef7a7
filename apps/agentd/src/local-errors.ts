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
  | 'aborted';

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

export type AgentdErrorCode = SupervisorErrorCode | DaemonErrorCode | ClusterErrorCode;
