/** The local error codes of @agentd/skills (never sent to a peer): switch on `error.code`. */
import { LocalError } from '@agentd/rpc-frame';

/**
 * - `invalid_definition`: a skill breaks SEP-2640 or the Agent Skills format (the message says how),
 *   or a folder's first scan found such skills.
 * - `duplicate`: a skill, or one of its file URIs, is already served (with other content).
 * - `invalid_option`: a `serveSkillsFolder` option is out of range, the folder is no readable
 *   directory, or the host is neither an McpServer nor a Dispatcher.
 */
export type SkillsErrorCode = 'invalid_definition' | 'duplicate' | 'invalid_option';

export function skillsError(
  code: SkillsErrorCode,
  message: string,
  options?: { cause?: unknown },
): LocalError<SkillsErrorCode> {
  return new LocalError<SkillsErrorCode>(code, message, options);
}
