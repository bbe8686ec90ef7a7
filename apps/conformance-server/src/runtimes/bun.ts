/** The fixture under Bun: `bun dist/runtimes/bun.js`; prints `{"url": …}` once listening. */
import { everythingFetch } from '../fetch-app.js';

declare const Bun: {
  serve(options: {
    port: number;
    hostname: string;
    idleTimeout: number;
    fetch: (request: Request) => Promise<Response>;
  }): { port: number };
};

// idleTimeout 0: SSE streams (listen, GET) stay open between keep-alives.
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', idleTimeout: 0, fetch: everythingFetch });
console.log(JSON.stringify({ url: `http://localhost:${server.port}/mcp` }));
