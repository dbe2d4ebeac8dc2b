/**
 * A grant naming an external payment reference already claimed is the same payment sent
 * again (a retried request, a double click, a second operator): it credits nothing and
 * answers with the original grant. The same reference for another account or amount is
 * a different payment under a reused reference, which finance must look at: refused.
 */
export interface ClaimedReference {
  readonly accountId: string;
  readonly amount: number;
  readonly grantId: string;
}

export type ReferenceDecision =
  | { readonly tag: 'Replay'; readonly grantId: string }
  | { readonly tag: 'PaymentReferenceInUse'; readonly paymentReference: string; readonly claimed: ClaimedReference };

export function decideReferenceReuse(
  paymentReference: string,
  claimed: ClaimedReference,
  requested: { readonly accountId: string; readonly amount: number },
): ReferenceDecision {
  return claimed.accountId === requested.accountId && claimed.amount === requested.amount
    ? { tag: 'Replay', grantId: claimed.grantId }
    : { tag: 'PaymentReferenceInUse', paymentReference, claimed };
}
