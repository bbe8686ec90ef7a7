/** Tools that need client input: legacy server-to-client requests and 2026 input_required rounds. */
import type { Dispatcher, HandlerContext } from '@agentd/dispatch';
import { answer, stringForm } from './assets.js';

type Args = Record<string, unknown>;

function sampledText(result: Record<string, unknown>): string {
  const content = result.content as Record<string, unknown> | undefined;
  return typeof content?.text === 'string' ? content.text : 'No response';
}

function elicitSummary(result: Record<string, unknown>): string {
  return `action=${String(result.action)}, content=${JSON.stringify(result.content ?? {})}`;
}

const SEP1034_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: {
      type: 'string',
      description: 'User status',
      enum: ['active', 'inactive', 'pending'],
      default: 'active',
    },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
  required: [],
};

const SEP1330_SCHEMA = {
  type: 'object',
  properties: {
    untitledSingle: {
      type: 'string',
      description: 'Select one option',
      enum: ['option1', 'option2', 'option3'],
    },
    titledSingle: {
      type: 'string',
      description: 'Select one option with titles',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      description: 'Select one option (legacy)',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Select multiple options',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Select multiple options with titles',
      minItems: 1,
      maxItems: 3,
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
  required: [],
};

function tool(
  dispatcher: Dispatcher,
  name: string,
  description: string,
  handler: (args: Args, ctx: HandlerContext) => Promise<unknown>,
  inputSchema?: Record<string, unknown>,
): void {
  dispatcher.registerTool(
    inputSchema === undefined ? { name, description, handler } : { name, description, inputSchema, handler },
  );
}

export function registerClientInputTools(dispatcher: Dispatcher): void {
  tool(
    dispatcher,
    'test_sampling',
    'Tests server-initiated sampling (LLM completion request)',
    async (args, ctx) => {
      const result = await ctx.sample({
        messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt ?? '') } }],
        maxTokens: 100,
      });
      return `LLM response: ${sampledText(result)}`;
    },
    {
      type: 'object',
      properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } },
      required: ['prompt'],
    },
  );

  tool(
    dispatcher,
    'test_elicitation',
    'Tests server-initiated elicitation (user input request)',
    async (args, ctx) => {
      const result = await ctx.elicit({
        message: String(args.message ?? ''),
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return `User response: ${elicitSummary(result)}`;
    },
    {
      type: 'object',
      properties: { message: { type: 'string', description: 'The message to show the user' } },
      required: ['message'],
    },
  );

  tool(
    dispatcher,
    'test_elicitation_sep1034_defaults',
    'Tests elicitation with default values per SEP-1034',
    async (_args, ctx) => {
      const result = await ctx.elicit({
        message: 'Please review and update the form fields with defaults',
        requestedSchema: SEP1034_SCHEMA,
      });
      return `Elicitation completed: ${elicitSummary(result)}`;
    },
  );

  tool(
    dispatcher,
    'test_elicitation_sep1330_enums',
    'Tests elicitation with enum schema improvements per SEP-1330',
    async (_args, ctx) => {
      const result = await ctx.elicit({
        message: 'Please select options from the enum fields',
        requestedSchema: SEP1330_SCHEMA,
      });
      return `Elicitation completed: ${elicitSummary(result)}`;
    },
  );

  dispatcher.registerTool({
    name: 'test_missing_capability',
    description: 'Test tool requiring sampling (fails with -32021 when the client did not declare it)',
    requiredClientCapabilities: { sampling: {} },
    handler: () => 'Success',
  });

  registerMrtrTools(dispatcher);
}

/** 2026-07-28 multi-round-trip tools; in a legacy session the same code asks the client directly. */
function registerMrtrTools(dispatcher: Dispatcher): void {
  tool(
    dispatcher,
    'test_input_required_result_elicitation',
    'MRTR: asks for the user name by elicitation',
    async (_a, ctx) => {
      const result = await ctx.elicit(
        { message: 'What is your name?', requestedSchema: stringForm('name') },
        { key: 'user_name' },
      );
      return `Hello, ${answer(result, 'name')}!`;
    },
  );

  tool(
    dispatcher,
    'test_input_required_result_sampling',
    'MRTR: asks the client to sample an answer',
    async (_a, ctx) => {
      const result = await ctx.sample(
        {
          messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
          maxTokens: 100,
        },
        { key: 'capital_question' },
      );
      return `Sampling result: ${sampledText(result)}`;
    },
  );

  tool(
    dispatcher,
    'test_input_required_result_list_roots',
    'MRTR: asks the client for its roots',
    async (_a, ctx) => {
      const result = await ctx.listRoots({ key: 'client_roots' });
      const roots = Array.isArray(result.roots) ? result.roots : [];
      return `Found ${roots.length} root(s)`;
    },
  );

  tool(
    dispatcher,
    'test_input_required_result_request_state',
    'MRTR: a confirmation round carried by requestState (answers text with state-ok)',
    async (_a, ctx) => {
      const result = await ctx.elicit(
        {
          message: 'Please confirm',
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
        },
        { key: 'confirm' },
      );
      const content = result.content as Record<string, unknown> | undefined;
      return content?.ok === true ? 'state-ok: requestState validated' : 'state-ok: confirmation declined';
    },
  );

  tool(
    dispatcher,
    'test_input_required_result_multiple_inputs',
    'MRTR: three input requests in one round',
    async (_a, ctx) => {
      const [user, greeting, roots] = await Promise.all([
        ctx.elicit(
          { message: 'What is your name?', requestedSchema: stringForm('name') },
          { key: 'user_name' },
        ),
        ctx.sample(
          {
            messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
            maxTokens: 50,
          },
          { key: 'greeting' },
        ),
        ctx.listRoots({ key: 'client_roots' }),
      ]);
      const count = Array.isArray(roots.roots) ? roots.roots.length : 0;
      return `Name: ${answer(user, 'name')}; Greeting: ${sampledText(greeting)}; Roots: ${count}`;
    },
  );

  tool(
    dispatcher,
    'test_input_required_result_multi_round',
    'MRTR: two rounds of questions, then the result',
    async (_a, ctx) => {
      const name = await ctx.elicit(
        { message: 'Step 1: What is your name?', requestedSchema: stringForm('name') },
        { key: 'step1' },
      );
      const color = await ctx.elicit(
        { message: 'Step 2: What is your favorite color?', requestedSchema: stringForm('color') },
        { key: 'step2' },
      );
      return `Multi-round complete for ${answer(name, 'name')} who likes ${answer(color, 'color')}`;
    },
  );

  tool(
    dispatcher,
    'test_input_required_result_tampered_state',
    'MRTR: integrity-protected requestState (a tampered one is refused)',
    async (_a, ctx) => {
      await ctx.elicit(
        {
          message: 'Please confirm',
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
        },
        { key: 'confirm' },
      );
      return 'integrity-ok: state verified';
    },
  );

  tool(
    dispatcher,
    'test_input_required_result_capabilities',
    'MRTR: asks only for what this request declared',
    async (_a, ctx) => {
      const asks: Promise<Record<string, unknown>>[] = [];
      const keys: string[] = [];
      if (ctx.supports('elicitation')) {
        keys.push('elicit_input');
        asks.push(
          ctx.elicit(
            { message: 'Elicitation input', requestedSchema: stringForm('value') },
            { key: 'elicit_input' },
          ),
        );
      }
      if (ctx.supports('sampling')) {
        keys.push('sample_input');
        asks.push(
          ctx.sample(
            {
              messages: [{ role: 'user', content: { type: 'text', text: 'Sample request' } }],
              maxTokens: 50,
            },
            { key: 'sample_input' },
          ),
        );
      }
      if (asks.length === 0) return 'No supported capabilities declared';
      await Promise.all(asks);
      return `capabilities-ok: received ${keys.join(',')}`;
    },
  );
}
