/** Tests for the answers to invalid lines. */
import { describe, expect, it } from 'vitest';
import { FrameDecoder } from './frame-decoder.js';
import { invalidMessageResponse } from './invalid-message-response.js';

describe('invalidMessageResponse', () => {
  it('answers unparseable text with -32700 and id null', () => {
    const [frame] = new FrameDecoder().push('not json\n');
    if (frame?.kind !== 'invalid') throw new Error('expected an invalid frame');
    expect(invalidMessageResponse(frame)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
  });

  it('answers a batch with -32600 and says why', () => {
    const [frame] = new FrameDecoder().push('[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n');
    if (frame?.kind !== 'invalid') throw new Error('expected an invalid frame');
    const response = invalidMessageResponse(frame);
    expect(response).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(response.error.message).toMatch(/^Invalid Request: .*batch/);
  });

  it('keeps the id of a readable request', () => {
    expect(
      invalidMessageResponse({ kind: 'invalid', code: -32600, reason: 'params must be an object', id: 3 }),
    ).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32600, message: 'Invalid Request: params must be an object' },
    });
  });
});
