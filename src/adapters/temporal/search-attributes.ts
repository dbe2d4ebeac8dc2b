/**
 * The custom search attribute every workflow we start carries: the billing account it
 * works for, so an operator finds an account's runs in the Web UI or CLI with
 * `CourtRecordsAccountId="<id>"`. A Keyword (exact match). The account id is our opaque
 * internal id, never a name or an email: search attributes are indexed in the clear, the
 * payload codec does not cover them. A namespace must have the attribute registered
 * before a start may set it, or every start is refused: the dev server started here gets
 * `DEV_SERVER_FLAGS`; on a cluster the service registers it at start when it may
 * (`registerSearchAttributes`), else an operator runs `temporal operator search-attribute
 * create` (README, "Workflows for ops").
 */
import type { Client } from '@temporalio/client';
import { SearchAttributeType, TypedSearchAttributes, defineSearchAttributeKey } from '@temporalio/common';
import proto from '@temporalio/proto';
import { engineCall } from './engine-calls.ts';

export const ACCOUNT_ID = defineSearchAttributeKey('CourtRecordsAccountId', SearchAttributeType.KEYWORD);

/** `temporal server start-dev` flags that register the attributes above. */
export const DEV_SERVER_FLAGS = ['--search-attribute', `${ACCOUNT_ID.name}=Keyword`];

export function accountSearchAttributes(accountId: string): TypedSearchAttributes {
  return new TypedSearchAttributes([{ key: ACCOUNT_ID, value: accountId }]);
}

/** Registers the attributes in `namespace` unless it has them; throws when the cluster refuses (no operator rights). */
export async function registerSearchAttributes(client: Client, namespace: string): Promise<'present' | 'created'> {
  const operator = client.connection.operatorService;
  const listed = await engineCall(client, () => operator.listSearchAttributes({ namespace }));
  if (ACCOUNT_ID.name in listed.customAttributes) return 'present';
  const keyword = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  await engineCall(client, () => operator.addSearchAttributes({ namespace, searchAttributes: { [ACCOUNT_ID.name]: keyword } }));
  return 'created';
}
