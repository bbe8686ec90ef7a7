/**
 * What the Dispatcher hands a MethodProvider in `attach(host)`, used as a third-party extension
 * would: the peer's resource visibility, cursor paging over the provider's own sorted entries,
 * the 2026-07-28 cache hints, the logger; and the registration checks an extension makes first.
 */
import { ErrorCode } from '@agentd/lifecycle';
import { type JsonObject, silentLogger, WireError } from '@agentd/rpc-frame';
import { describe, expect, it } from 'vitest';
import { Dispatcher } from './dispatcher.js';
import type { DispatcherOptions } from './dispatcher-options.js';
import type { MethodProvider, ProviderHost } from './method-provider.js';
import { createTestClient } from './testing.js';

/** Key-sorted, as `page` expects: the name, and the resource URI the peer must be allowed to see. */
const FRUIT = [
  ['apple', 'fruit://apple'],
  ['banana', 'fruit://banana'],
  ['cherry', 'fruit://cherry'],
  ['damson', 'fruit://damson'],
] as const;

/** An extension listing fruit (`fruit/list`, and a second list `fruit/other` with its own cursors). */
function fruitExtension(): MethodProvider & { readonly host: ProviderHost | undefined } {
  let host: ProviderHost | undefined;
  return {
    name: 'fruit',
    methods: ['fruit/list', 'fruit/other'],
    get host() {
      return host;
    },
    attach(given) {
      host = given;
    },
    handle(method, params, context) {
      const at = host as ProviderHost;
      const visibility = at.resources(context);
      const keep = visibility.permissive ? undefined : (uri: string) => visibility.visible(uri);
      const { items, nextCursor } = at.page(method, FRUIT, params.cursor, keep);
      const result: JsonObject = { fruit: items };
      if (nextCursor !== undefined) result.nextCursor = nextCursor;
      return at.finish(context, result, 'list');
    },
  };
}

function serve(options: DispatcherOptions = {}) {
  const extension = fruitExtension();
  const dispatcher = new Dispatcher({ logger: silentLogger, pageSize: 2, ...options });
  dispatcher.registerProvider(extension);
  return { dispatcher, extension };
}

async function refusal(promise: Promise<unknown>): Promise<WireError> {
  const error = await promise.then(
    () => new Error('expected a refusal'),
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof WireError)) throw error;
  return error;
}

describe('the ProviderHost', () => {
  it('pages the provider entries by the dispatcher page size; the cursor resumes after the last key', async () => {
    const client = await createTestClient(serve().dispatcher);
    const first = await client.request('fruit/list', {});
    expect(first.fruit).toEqual(['fruit://apple', 'fruit://banana']);
    expect(typeof first.nextCursor).toBe('string');
    const second = await client.request('fruit/list', { cursor: first.nextCursor as string });
    expect(second.fruit).toEqual(['fruit://cherry', 'fruit://damson']);
    expect(second.nextCursor).toBeUndefined();
    await client.close();
  });

  it("skips what the peer's filters hide, and pages what is left", async () => {
    const { dispatcher } = serve({ filtersFor: () => ({ resources: { deny: ['fruit://banana'] } }) });
    const client = await createTestClient(dispatcher);
    const first = await client.request('fruit/list', {});
    expect(first.fruit).toEqual(['fruit://apple', 'fruit://cherry']);
    const second = await client.request('fruit/list', { cursor: first.nextCursor as string });
    expect(second.fruit).toEqual(['fruit://damson']);
    await client.close();
  });

  it('refuses a cursor minted for another list, or by no one, with -32602', async () => {
    const client = await createTestClient(serve().dispatcher);
    const { nextCursor } = await client.request('fruit/list', {});
    for (const cursor of [nextCursor, 'not-a-cursor', 42]) {
      const error = await refusal(client.request('fruit/other', { cursor } as JsonObject));
      expect(error.code, String(cursor)).toBe(ErrorCode.InvalidParams);
    }
    await client.close();
  });

  it('adds the list cache hints on 2026-07-28 only', async () => {
    const { dispatcher } = serve({ cache: { listTtlMs: 5_000 } });
    const modern = await createTestClient(dispatcher);
    expect(await modern.request('fruit/list', {})).toMatchObject({ ttlMs: 5_000, cacheScope: 'public' });
    const legacy = await createTestClient(dispatcher, { era: 'legacy' });
    const answer = await legacy.request('fruit/list', {});
    expect(answer.ttlMs).toBeUndefined();
    expect(answer.cacheScope).toBeUndefined();
    await Promise.all([modern.close(), legacy.close()]);
  });

  it("is the dispatcher's logger and declared extension settings", () => {
    const logger = { ...silentLogger };
    const { dispatcher, extension } = serve({ logger, extensions: { 'com.example/fruit': { ripe: true } } });
    expect(extension.host?.logger).toBe(logger);
    expect(extension.host?.extension('com.example/fruit')).toEqual({ ripe: true });
    expect(extension.host?.extension('com.example/none')).toBeUndefined();
    dispatcher.declareExtension('com.example/none', {});
    expect(extension.host?.extension('com.example/none')).toEqual({});
  });
});

describe('what an extension checks before it registers resources', () => {
  it('hasResource and hasResourceTemplate see what is registered, whatever the filters', () => {
    const { dispatcher } = serve({ filtersFor: () => ({ resources: { deny: ['*'] } }) });
    expect(dispatcher.hasResource('fruit://apple')).toBe(false);
    const remove = dispatcher.registerResource({ uri: 'fruit://apple', name: 'apple', read: () => 'red' });
    expect(dispatcher.hasResource('fruit://apple')).toBe(true);
    remove();
    expect(dispatcher.hasResource('fruit://apple')).toBe(false);
    expect(dispatcher.hasResourceTemplate('fruit://{name}')).toBe(false);
    dispatcher.registerResourceTemplate({ uriTemplate: 'fruit://{name}', name: 'fruit', read: () => 'x' });
    expect(dispatcher.hasResourceTemplate('fruit://{name}')).toBe(true);
  });
});
