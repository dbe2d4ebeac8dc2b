/**
 * What webhook delivery needs from outside the application: posting an attempt, the
 * secrets (generated, sealed at rest, signing), and the workflow engine that runs one
 * workflow per delivery. Workflow ids derive from the delivery id, so a second start of
 * the same delivery is refused, never run twice.
 */
import { WorkflowEngineUnavailableError, type WorkflowState } from './analysis-workflows.ts';

export interface WebhookSender {
  /** Resolves with the receiver's status code; redirects are answers, never followed. */
  post(url: string, headers: Readonly<Record<string, string>>, body: string): Promise<{ status: number }>;
}

/** The endpoint resolves to (or is) an address deliveries must not reach: not retried. */
export class WebhookAddressRefusedError extends Error {
  override readonly name = 'WebhookAddressRefusedError';
}

export interface WebhookSecrets {
  /** A fresh `whsec_<base64>` secret. */
  generate(): string;
  seal(secret: string): string;
  open(sealed: string): string;
  /** `v1,<base64 HMAC-SHA256>` over `<id>.<timestamp>.<body>`. */
  sign(input: { id: string; timestamp: number; body: string; secret: string }): string;
}

export type DeliveryStartOutcome = 'started' | 'already-started';

export interface WebhookWorkflows {
  readonly available: boolean;
  startDelivery(deliveryId: string, accountId: string): Promise<DeliveryStartOutcome>;
  /** Whether the delivery's workflow runs, has ended, or is unknown to the engine (its history was lost). */
  deliveryState(deliveryId: string): Promise<WorkflowState>;
}

const noEngine = () => Promise.reject(new WorkflowEngineUnavailableError('no workflow engine is available'));

export const unavailableWebhookWorkflows: WebhookWorkflows = {
  available: false,
  startDelivery: noEngine,
  deliveryState: noEngine,
};
