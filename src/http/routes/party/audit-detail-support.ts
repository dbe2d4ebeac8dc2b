/**
 * What a litigation check leaves in its own audit row (the spec: purpose is "recorded in
 * the audit trail, never logged with the name"; rule 5: only lengths and counts, with
 * purpose and entityType). Built from the parsed body before any work, so a call refused
 * later (402, 403, 429, 502) is recorded with its purpose too. Nothing here may carry a
 * name, alias, identifier, address or known person: only enums, lengths, counts and flags.
 */
import type { BatchItemInput } from '../../../application/screening/litigation-checks.ts';
import { shapeOf } from '../../../application/screening/litigation-checks.ts';
import type { AuditDetail } from '../../../domain/audit/audit.ts';
import type { ScreeningFields } from './party-schemas.ts';

export function screenAuditDetail(body: ScreeningFields & { readonly purpose: string }): AuditDetail {
  return {
    purpose: body.purpose,
    entityType: body.entityType,
    nameLength: body.name.length,
    aliasCount: body.aliases?.length ?? 0,
    identifierCount: Object.keys(body.identifiers ?? {}).length,
    knownPersonCount: body.knownPersons?.length ?? 0,
    addressGiven: body.address !== undefined,
  };
}

/** A batch's row: its purpose and default entity type, how many items, and counts summed over the well-formed ones. */
export function batchAuditDetail(
  body: { readonly purpose: string; readonly entityType?: 'person' | 'company' | undefined },
  inputs: readonly BatchItemInput[],
): AuditDetail {
  const shapes = inputs.flatMap((input) => (input.ok ? [shapeOf(input.request)] : []));
  const sum = (count: (shape: (typeof shapes)[number]) => number) => shapes.reduce((total, shape) => total + count(shape), 0);
  return {
    purpose: body.purpose,
    ...(body.entityType === undefined ? {} : { entityType: body.entityType }),
    itemCount: inputs.length,
    invalidItemCount: inputs.length - shapes.length,
    personCount: sum((s) => (s.entityType === 'person' ? 1 : 0)),
    companyCount: sum((s) => (s.entityType === 'company' ? 1 : 0)),
    aliasCount: sum((s) => s.aliases),
    identifierCount: sum((s) => s.identifiers),
    knownPersonCount: sum((s) => s.knownPersons),
  };
}
