/** The fixture under Deno: `deno run --allow-net --allow-read --allow-env dist/runtimes/deno.js`; prints `{"url": …}`. */
import { everythingFetch } from '../fetch-app.js';

declare const Deno: {
  serve(
    options: { port: number; hostname: string; onListen: (address: { port: number }) => void },
    handler: (request: Request) => Promise<Response>,
  ): unknown;
};

Deno.serve(
  {
    port: 0,
    hostname: '127.0.0.1',
    onListen: ({ port }) => console.log(JSON.stringify({ url: `http://localhost:${port}/mcp` })),
  },
  everythingFetch,
);
