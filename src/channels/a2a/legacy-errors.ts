// A2A 0.3 errors with the catalogue code and detail in `data`, where the SDK's 0.3 mapping drops them (ARCHITECTURE "A2A channel").
import { A2AError, isJsonRpcError, JsonRpcTransportError, toJsonRpcError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';

/**
 * A 1.0 error carries its metadata in `data` as a `google.rpc.ErrorInfo`; 0.3 has no ErrorInfo, and
 * the SDK's 0.3 mapping (`LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError`) keeps `data` only
 * for an error that already is a JSON-RPC envelope. So an error with metadata becomes that envelope,
 * same code and message, its metadata (`code`, `detail`, `retry_after_seconds`) as the `data` object,
 * which a 0.3 client reads as the error's details.
 */
export function withErrorData(error: unknown): unknown {
  if (!(error instanceof A2AError) || !error.metadata || isJsonRpcError(error)) return error;
  const { code, message } = toJsonRpcError(error);
  return new JsonRpcTransportError({ jsonrpc: '2.0', id: null, error: { code, message, data: { ...error.metadata } } });
}

/**
 * The request handler as the 0.3 transport sees it: the same handler, whose messages fail with
 * `withErrorData`'s errors. Only SendMessage carries errors with metadata (skills.ts, a2a-errors.ts).
 */
export function legacyHandler(handler: A2ARequestHandler): A2ARequestHandler {
  const legacy: A2ARequestHandler = Object.create(handler);
  legacy.sendMessage = async (params, context) => {
    try {
      return await handler.sendMessage(params, context);
    } catch (error) {
      throw withErrorData(error);
    }
  };
  return legacy;
}
