/** @agentd/lifecycle/apps: the rules of the MCP Apps extension (`io.modelcontextprotocol/ui`). */
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
