/** The ACP client's `fs/read_text_file` and `fs/write_text_file`, inside the run's working directory. */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type {
  ReadTextFileRequest,
  ReadTextFileResponse,
  WriteTextFileRequest,
  WriteTextFileResponse,
} from '@agentclientprotocol/sdk/unstable';
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import { resolveInside } from './acp-workspace.js';

function failed(path: string, error: unknown): RequestError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return RequestError.resourceNotFound(path);
  // The agent learns the errno, not the daemon's internals.
  return RequestError.internalError({ path, code }, `file operation failed (${code ?? 'error'})`);
}

export class WorkspaceFiles {
  /** `root` is a real path; `maxBytes` bounds a file read or written. */
  constructor(
    private readonly root: string,
    private readonly maxBytes: number,
  ) {}

  async read(params: ReadTextFileRequest): Promise<ReadTextFileResponse> {
    const path = await resolveInside(this.root, params.path);
    let text: string;
    try {
      const info = await stat(path);
      if (!info.isFile()) throw RequestError.invalidParams({ path: params.path }, 'not a regular file');
      if (info.size > this.maxBytes)
        throw RequestError.invalidParams({ path: params.path }, `file larger than ${this.maxBytes} bytes`);
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (error instanceof RequestError) throw error;
      throw failed(params.path, error);
    }
    const line = params.line ?? 1;
    if (params.line == null && params.limit == null) return { content: text };
    const lines = text.split('\n');
    const start = Math.max(0, line - 1);
    const end = params.limit == null ? undefined : start + Math.max(0, params.limit);
    return { content: lines.slice(start, end).join('\n') };
  }

  async write(params: WriteTextFileRequest): Promise<WriteTextFileResponse> {
    if (typeof params.content !== 'string' || Buffer.byteLength(params.content) > this.maxBytes)
      throw RequestError.invalidParams({ path: params.path }, `content larger than ${this.maxBytes} bytes`);
    const path = await resolveInside(this.root, params.path);
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, params.content, 'utf8');
    } catch (error) {
      throw failed(params.path, error);
    }
    return {};
  }
}
