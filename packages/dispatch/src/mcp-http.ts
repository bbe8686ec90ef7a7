/** Serves a ContractServer over HTTP: `POST` one JSON-RPC request, get its JSON-RPC response back. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostPolicy, isAllowedHost, isAllowedOrigin } from '@agentd/lifecycle';
import { ErrorCode, errorResponse, type JsonRpcErrorObject, type Logger } from '@agentd/rpc-frame';
import type { Peer } from '@agentd/server';
import { consoleLogger } from './console-logger.js';
import type { ContractServer } from './contract-server.js';
import { TransportAnswers } from './transport-answers.js';

export interface ContractHttpOptions {
  /** Largest accepted body in bytes; past it 413. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Host names besides loopback that may appear in `Host` (`api.example.com`, `api.example.com:8443`). */
  allowedHosts?: readonly string[];
  /** Origins besides loopback that browsers may call from (`https://app.example.com`). */
  allowedOrigins?: readonly string[];
  /** Where a request that failed inside the server (answered -32603) is reported, at warn. Default: console (stderr). */
  logger?: Logger;
}

const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

let nextConnection = 0;

/**
 * A `node:http` request listener (`http.createServer(listener)`, or mounted on one route of an
 * existing server). Every JSON-RPC answer, errors included, is `200 application/json`, as the
 * contract returns a response for every request; HTTP statuses are only for what is not a
 * JSON-RPC exchange: 403 (Host/Origin not allowed: DNS-rebinding guard, loopback by default),
 * 405 (not POST), 415 (not application/json), 413 (body too large). Peers are `anonymous`.
 */
export function mcpHttpListener(
  server: ContractServer,
  options: ContractHttpOptions = {},
): (request: IncomingMessage, response: ServerResponse) => void {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const policy = hostPolicy(options.allowedHosts, options.allowedOrigins);
  const answers = new TransportAnswers(server, options.logger ?? consoleLogger, 'http');
  return (request, response) => {
    if (!isAllowedHost(request.headers.host, policy) || !isAllowedOrigin(request.headers.origin, policy)) {
      refuse(response, 403, 'Forbidden: Host or Origin not allowed');
      return;
    }
    if (request.method !== 'POST') {
      refuse(response, 405, 'Method Not Allowed: send the request with POST', { allow: 'POST' });
      return;
    }
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      refuse(response, 415, 'Unsupported Media Type: Content-Type must be application/json');
      return;
    }
    const abort = new AbortController();
    response.once('close', () => abort.abort());
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > maxBodyBytes) {
        refused = true;
        refuse(response, 413, `Payload Too Large: limit is ${maxBodyBytes} bytes`, { connection: 'close' });
        return;
      }
      chunks.push(chunk);
    });
    request.once('error', () => response.destroy());
    request.once('end', () => {
      if (refused) return;
      const peer: Peer = {
        origin: 'anonymous',
        connectionId: `http-${++nextConnection}`,
        transport: 'http',
        attributes: { remoteAddress: request.socket.remoteAddress },
      };
      void answers
        .answer(Buffer.concat(chunks).toString('utf8'), { peer, signal: abort.signal })
        .then((body) => {
          if (response.destroyed) return;
          response.writeHead(200, {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          });
          response.end(body);
        });
    });
  };
}

function refuse(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const error: JsonRpcErrorObject = { code: ErrorCode.InvalidRequest, message };
  const body = JSON.stringify(errorResponse(null, error));
  response.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}
