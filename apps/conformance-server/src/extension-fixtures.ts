/**
 * The fixture's two extensions: Skills (SEP-2640, the suite's `sep-2640-*` scenarios) and one
 * MCP App (SEP-1865, `io.modelcontextprotocol/ui`): a `ui://` view and a tool linked to it that
 * still answers with text for hosts that do not render apps. Registered in code, so the fixture
 * stays runtime-neutral.
 */
import type { Dispatcher } from '@agentd/dispatch';
import { registerAppResource, registerAppTool } from '@agentd/dispatch/apps';
import { registerSkill } from '@agentd/skills';

const VIEW_URI = 'ui://conformance/echo.html';

const VIEW = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>Echo</title></head>
  <body><main id="out">waiting for the tool result</main></body>
</html>
`;

export function registerExtensionFixtures(dispatcher: Dispatcher): void {
  // The `sep-2640-skills-directory` scenario browses the first skill by URI: both have a folder.
  registerSkill(dispatcher, {
    path: 'code-review',
    files: {
      'SKILL.md':
        '---\nname: code-review\ndescription: Review a change for correctness and style\n---\n\n# Code review\n\nRead the diff, then the checklist in references/.\n',
      'references/CHECKLIST.md': '# Checklist\n\n- Tests cover the change\n- Names say what things are\n',
    },
  });
  registerSkill(dispatcher, {
    path: 'pdf-processing',
    files: {
      'SKILL.md':
        '---\nname: pdf-processing\ndescription: Extract text and tables from PDF files\n---\n\n# PDF processing\n\nSee templates/ for output layouts.\n',
      'templates/invoice.md': '# Invoice\n\n| item | amount |\n',
    },
  });
  registerAppResource(dispatcher, {
    uri: VIEW_URI,
    name: 'echo_view',
    title: 'Echo view',
    description: 'Shows the text the echo app tool returns',
    html: VIEW,
    ui: { prefersBorder: true },
  });
  registerAppTool(dispatcher, {
    name: 'test_app_echo',
    description: 'Echoes its text; hosts that render MCP Apps show it in the echo view',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    ui: { resourceUri: VIEW_URI },
    handler: ({ text }) => `echo: ${text}`,
  });
}
