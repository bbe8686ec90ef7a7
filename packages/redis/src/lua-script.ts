/** A Lua script run by its SHA (EVALSHA), loaded with EVAL when Redis does not know it yet (after a restart). */
import { createHash } from 'node:crypto';
import type { RedisClient } from './raw-client.js';

export class LuaScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: RedisClient, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await client.evalSha(this.#sha, { keys, arguments: args });
    } catch (error) {
      if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
      return client.eval(this.#source, { keys, arguments: args });
    }
  }
}
