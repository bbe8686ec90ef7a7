/** `@agentd/dispatch/schema`: the Dispatcher's own schema checking, offered on its own. */
import { silentLogger } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import { compileSchema, describeIssues, type SchemaValidation } from './schema.js';
import { createTestClient } from './testing.js';

const ORDER = {
  type: 'object',
  properties: {
    id: { type: 'string', minLength: 3 },
    lines: { type: 'array', items: { type: 'object', properties: { qty: { type: 'integer', minimum: 1 } } } },
    rush: { enum: ['yes', 'no'] },
  },
  required: ['id'],
  additionalProperties: false,
};

describe('compileSchema', () => {
  for (const validation of ['auto', 'compiled', 'interpreted'] satisfies SchemaValidation[]) {
    it(`${validation}: passes what the schema allows and names each failing argument and rule`, () => {
      const check = compileSchema(ORDER, 'order', validation);
      expect(check({ id: 'abc', lines: [{ qty: 2 }], rush: 'no' })).toBeUndefined();
      const issues = check({ lines: [{ qty: 0 }], rush: 'maybe', extra: true }) ?? [];
      expect(issues.map((issue) => [issue.argument, issue.rule]).sort()).toEqual(
        [
          ['extra', 'additionalProperties'],
          ['id', 'required'],
          ['lines[0].qty', 'minimum'],
          ['rush', 'enum'],
        ].sort(),
      );
    });
  }

  it('draft-07 is followed when the schema declares it (items as an array is a tuple there)', () => {
    const tuple = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'array',
      items: [{ type: 'string' }, { type: 'number' }],
    };
    const check = compileSchema(tuple, 'pair');
    expect(check(['a', 1])).toBeUndefined();
    expect(check([1, 'a'])?.map((issue) => issue.argument)).toEqual(['[0]', '[1]']);
  });

  it('refuses what is not a usable schema, naming it', () => {
    expect(() => compileSchema('nope', 'the order schema')).toThrow(
      /the order schema must be a JSON Schema object/,
    );
    expect(() => compileSchema({ type: 'object', properties: { id: { type: 'strin' } } }, 'order')).toThrow(
      /order is not a valid JSON Schema/,
    );
  });

  it('describes issues in the words a client reads when a tool call is refused', async () => {
    const dispatcher = new Dispatcher({ logger: silentLogger });
    dispatcher.registerTool({
      name: 'order',
      description: 'takes an order',
      inputSchema: ORDER,
      handler: () => 'ok',
    });
    const client = await createTestClient(dispatcher);
    const args = { lines: [{ qty: 0 }] };
    const refused = await client.callTool('order', args);
    await client.close();
    const issues = compileSchema(ORDER, 'order')(args) ?? [];
    expect(refused.isError).toBe(true);
    expect(refused.content).toEqual([{ type: 'text', text: `Invalid arguments: ${describeIssues(issues)}` }]);
  });
});
