/**
 * @agentd/lifecycle: MCP protocol eras and versions; answers initialize, server/discover and ping
 * and checks modern per-request `_meta`. This file is the package's public API.
 */
export {
  APP_MIME_TYPE,
  APPS_EXTENSION,
  /** @public */ type AppCsp,
  /** @public */ type AppPermissions,
  type AppResourceUi,
  type AppToolUi,
  /** @public */ type AppVisibility,
  appResourceUiProblem,
  appToolMeta,
  appToolUiProblem,
  isUiUri,
  looksLikeHtmlDocument,
  visibleToModel,
} from './apps-extension.js';
export { classifyRequest, type ModernMeta, type RequestClass } from './classify-request.js';
export { ErrorCode } from './error-codes.js';
export {
  clientExtension,
  isExtensionId,
} from './extensions.js';
export { /** @public */ decodeHeaderValue } from './header-value.js';
export { type HostPolicy, hostPolicy, isAllowedHost, isAllowedOrigin } from './host-origin.js';
export {
  classifyHttpPost,
  contentTypeRefusal,
  type HeaderReader,
  postHeadersRefusal,
  streamAcceptRefusal,
} from './http-post-route.js';
export { insufficientScope, requiredScopesOf } from './insufficient-scope.js';
export {
  type LifecycleOptions,
  resolveLifecycle,
} from './lifecycle-options.js';
export { lifecycleResponse } from './lifecycle-response.js';
export { MetaKey } from './meta-keys.js';
export { listenFinalResult, modernResult } from './modern-result.js';
export { checkParamHeaders, type ParamHeader, paramHeadersOf } from './param-headers.js';
export type { Implementation, ServerCapabilities } from './protocol-types.js';
export { Refusal, type RefusalReason, refuse } from './refusals.js';
export {
  DIRECTORY_MIME_TYPE,
  isTraversingSkillUri,
  SKILL_AUTHORITY_PATTERN,
  SKILL_DESCRIPTION_MAX,
  SKILL_LIMITS,
  SKILL_MANIFEST,
  SKILL_MANIFEST_MIME_TYPE,
  SKILL_NAME_PATTERN,
  SKILL_SCHEME,
  SKILLS_EXTENSION,
  SkillErrorText,
  SkillsMethod,
  skillManifestUri,
  skillsInvalidParams,
} from './skills-extension.js';
export {
  createTaskResult,
  declaresTasksExtension,
  isTerminalTaskStatus,
  LEGACY_TASK_METHODS,
  legacyTasksCapability,
  legacyVersionHasTasks,
  MODERN_TASK_METHODS,
  missingTasksExtension,
  RELATED_TASK_META,
  TASKS_EXTENSION,
  TaskErrorText,
  type TaskInfo,
  type TaskStatus,
  taskWire,
} from './tasks-extension.js';
export { type Era, eraOfVersion, LEGACY_VERSIONS, MODERN_VERSION, SUPPORTED_VERSIONS } from './versions.js';
