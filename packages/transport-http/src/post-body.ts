/** A POST's body, once its headers pass: read within `maxBodyBytes`, or the refusal already sent. */
import { type Refusal, refuse } from '@agentd/lifecycle';
import { errorFields, LocalError } from '@agentd/rpc-frame';
import type { HttpIncoming } from './http-io.js';
import { failed, sendRefusal } from './replies.js';
import type { Caller, TransportContext } from './transport-context.js';

/**
 * The body text, or undefined once the caller has been answered: `headerRefusal` (the era's or the
 * wire profile's rule, judged before the body is read), 413 past the limit, or a failed read.
 */
export async function readPostBody(
  context: TransportContext,
  caller: Caller,
  incoming: HttpIncoming,
  headerRefusal: Refusal | undefined,
): Promise<string | undefined> {
  const { out, corsHeaders } = caller;
  if (headerRefusal !== undefined) {
    sendRefusal(out, null, headerRefusal, corsHeaders);
    return undefined;
  }
  try {
    return await incoming.readText(context.options.maxBodyBytes);
  } catch (error) {
    if (!(error instanceof LocalError && error.code === 'body_too_large')) {
      // The client's body stream failed (it went away mid-request): nothing internal to report.
      context.core.logger.debug('http request body could not be read', errorFields(error));
      failed(out);
      return undefined;
    }
    sendRefusal(out, null, refuse.payloadTooLarge(context.options.maxBodyBytes), {
      ...corsHeaders,
      connection: 'close',
    });
    return undefined;
  }
}
