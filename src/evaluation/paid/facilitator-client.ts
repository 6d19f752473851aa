// Talks to an x402 facilitator over HTTP (/verify, /settle) and says what happened in three words: ok, refused, unavailable.
import { HTTPFacilitatorClient } from '@x402/core/server';
import { SettleError, VerifyError, type Network, type PaymentPayload, type PaymentRequirements } from '@x402/core/types';
import { facilitatorRefusal, type Refusal } from './refusals.js';

export interface Settled {
  transaction: string;
  network: Network;
  payer: string;
}

export type FacilitatorAnswer<T> =
  | { kind: 'ok'; value: T }
  | { kind: 'refused'; refusal: Refusal }
  /** Unreachable, timed out, or answered something that is not x402: no verdict, no charge (503). */
  | { kind: 'unavailable'; detail: string };

/** The two calls a paid evaluation makes; the HTTP client below is the one the service uses. */
export interface FacilitatorPort {
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<FacilitatorAnswer<{ payer: string }>>;
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<FacilitatorAnswer<Settled>>;
  /** Resolves when the facilitator answers /supported (the status document's probe). */
  supported(): Promise<void>;
}

/** Verification reads the chain; settlement waits for a receipt. Both well under the 300 s validity window. */
const TIMEOUT_MS = 30_000;

export class HttpFacilitator implements FacilitatorPort {
  private readonly client: HTTPFacilitatorClient;

  constructor(readonly url: string, timeoutMs = TIMEOUT_MS) {
    this.client = new HTTPFacilitatorClient({ url, timeoutMs });
  }

  async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<FacilitatorAnswer<{ payer: string }>> {
    try {
      const answer = await this.client.verify(payload, requirements);
      if (!answer.isValid) return { kind: 'refused', refusal: facilitatorRefusal(answer.invalidReason, 'verify') };
      return { kind: 'ok', value: { payer: answer.payer ?? String((payload.payload.authorization as { from: string }).from) } };
    } catch (error) {
      if (error instanceof VerifyError) return { kind: 'refused', refusal: facilitatorRefusal(error.invalidReason, 'verify') };
      return { kind: 'unavailable', detail: `verify: ${messageOf(error)}` };
    }
  }

  async supported(): Promise<void> {
    await this.client.getSupported();
  }

  async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<FacilitatorAnswer<Settled>> {
    try {
      const answer = await this.client.settle(payload, requirements);
      if (!answer.success) return { kind: 'refused', refusal: facilitatorRefusal(answer.errorReason, 'settle') };
      return { kind: 'ok', value: { transaction: answer.transaction, network: answer.network, payer: answer.payer ?? '' } };
    } catch (error) {
      if (error instanceof SettleError) return { kind: 'refused', refusal: facilitatorRefusal(error.errorReason, 'settle') };
      return { kind: 'unavailable', detail: `settle: ${messageOf(error)}` };
    }
  }
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
