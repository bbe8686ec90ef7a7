/** Which protocol versions (and so which eras) the transport serves: the core's, optionally narrowed. */
import { eraOfVersion } from '@agentd/lifecycle';
import type { ServerCore } from '@agentd/server';
import { invalidOption } from './local-errors.js';

export interface ServedVersions {
  /** Legacy sessions, GET and DELETE are served. */
  readonly legacy: boolean;
  /** Newest first: what errors to a refused `initialize` name. */
  readonly versions: readonly string[];
}

/**
 * The core's lifecycle configuration decides; the transport's `legacy` option can only narrow it.
 * `legacy: true` on a core that speaks no legacy version is a configuration error (LocalError `invalid_options`).
 */
export function servedVersions(core: ServerCore, legacyOption: boolean | undefined): ServedVersions {
  const coreVersions = core.supportedVersions();
  const coreLegacy = coreVersions.some((v) => eraOfVersion(v) === 'legacy');
  if (legacyOption === true && !coreLegacy) {
    throw invalidOption(
      `legacy: true, but the core speaks no legacy protocol version (it speaks ${coreVersions.join(', ')})`,
    );
  }
  const legacy = coreLegacy && legacyOption !== false;
  const versions = legacy ? coreVersions : coreVersions.filter((v) => eraOfVersion(v) === 'modern');
  return { legacy, versions };
}
