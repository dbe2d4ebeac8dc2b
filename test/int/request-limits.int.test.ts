/**
 * The request caps on caller text, as the served OpenAPI document states them and as the
 * routes enforce them: the search filters' value counts and lengths (FILTER_LIMITS; a
 * court string counted after its comma split), the search cursor, the timeline CNR, the
 * litigation check's court and since. Each one over is a 400 VALIDATION_ERROR in the spec's
 * shape whose detail names the field, nothing is charged, and no detail echoes more than
 * the first characters of a value however long it was.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FILTER_LIMITS } from '../../src/application/search/search-filters.ts';
import type { OpenedDatabase } from '../../src/db/open.ts';
import { PRICES } from '../../src/domain/credits/prices.ts';
import { ECHO_MAX_CHARACTERS } from '../../src/domain/echo.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { BASE, buildTestApp, type TestApp } from '../support/app.ts';
import { databases } from '../support/databases.ts';

type Json = Record<string, unknown>;
const operator = { kind: 'operator' } as const;
const CREDITS = 100_000;

/** The longest a detail line may be: its field and rule, and at most an echo of a value. */
const MAX_DETAIL_LENGTH = 200;

const pglite = databases[0]!;

describe('request caps on caller text', () => {
  let database: OpenedDatabase;
  let t: TestApp;
  let key: string;
  let account: string;
  let document: { components: { schemas: Record<string, Json> } };

  before(async () => {
    database = await pglite.open();
    t = buildTestApp({ db: database.db });
    const registered = await t.application.accounts.registerUser(enterpriseUser('limits@caps.example'), operator);
    assert.ok(registered.ok);
    account = registered.value.userId;
    const created = await t.application.accounts.createKey(account, 'limits', operator);
    assert.ok(created.ok);
    key = created.value.fullKey;
    await t.application.credits.grantToUser(account, { amount: CREDITS, source: 'grant' });
    document = (await (await t.app.request(`${BASE}/openapi.json`)).json()) as typeof document;
  });
  after(async () => database.close());

  async function post(path: string, body: unknown): Promise<{ status: number; body: Json }> {
    const res = await t.app.request(`${BASE}${path}`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  }

  /** A 400 VALIDATION_ERROR whose first detail names `field`, with no detail longer than a field, a rule and an echo. */
  function refused(answer: { status: number; body: Json }, field: string, longest = MAX_DETAIL_LENGTH): string[] {
    assert.equal(answer.status, 400, JSON.stringify(answer.body).slice(0, 300));
    assert.equal(answer.body.code, 'VALIDATION_ERROR');
    const details = answer.body.details as string[];
    assert.ok(details[0]!.startsWith(field), details[0]);
    for (const d of details) assert.ok(d.length <= longest, `${String(d.length)} characters: ${d.slice(0, 100)}`);
    assert.ok((answer.body.message as string).length <= longest * details.length + 40);
    return details;
  }

  /** The schema of `property` of a component, its one-or-many union read as its string and array branches. */
  function stated(component: string, property: string): { maxLength?: number; maxItems?: number } {
    const schema = (document.components.schemas[component]!.properties as Record<string, Json>)[property]!;
    const branches = (schema.anyOf as Json[] | undefined) ?? [schema];
    const text = branches.find((b) => b.type === 'string');
    const list = branches.find((b) => b.type === 'array');
    return {
      ...(text?.maxLength === undefined ? {} : { maxLength: text.maxLength as number }),
      ...(list?.maxItems === undefined ? {} : { maxItems: list.maxItems as number }),
    };
  }

  it('states each filter cap in the OpenAPI document, for keyword and semantic search alike', () => {
    for (const [component, names] of [
      ['KeywordSearchRequest', { court: 'court', caseType: 'caseType', judgeName: 'judgeName', caseNumber: 'caseNumber' }],
      ['SemanticFilters', { court: 'court', caseType: 'caseType', judgeName: 'judgeName', caseNumber: 'caseNumber' }],
    ] as const)
      for (const [property, filter] of Object.entries(names))
        assert.deepEqual(
          stated(component, property),
          { maxLength: FILTER_LIMITS[filter].length, maxItems: FILTER_LIMITS[filter].values },
          `${component}.${property}`,
        );
    assert.equal(stated('KeywordSearchRequest', 'searchAfter').maxLength, 128);
    assert.equal(stated('TimelineRequest', 'cnr').maxLength, 30);
    assert.equal(stated('PartyScreenRequest', 'court').maxLength, 200);
    assert.equal(stated('PartyScreenRequest', 'since').maxLength, 10);
  });

  it('refuses a filter list longer than its cap, naming the field', async () => {
    const courts = Array.from({ length: FILTER_LIMITS.court.values + 1 }, () => 'Supreme Court of India');
    refused(await post('/search/cases', { query: 'land', court: courts }), 'court');
    refused(
      await post('/search/cases', { query: 'land', year: Array.from({ length: FILTER_LIMITS.year.values + 1 }, () => 2019) }),
      'year',
    );
    refused(await post('/search/cases', { query: 'land', judgeName: Array.from({ length: 51 }, () => 'X') }), 'judgeName');
    refused(await post('/search/cases/semantic', { query: 'land acquisition', filters: { court: courts } }), 'filters.court');
  });

  it('counts the parts of a comma-separated court string against the cap before reading any', async () => {
    const parts = Array.from({ length: FILTER_LIMITS.court.values + 1 }, (_, i) => `Court ${String(i)}`).join(',');
    const details = refused(await post('/search/cases', { query: 'land', court: parts }), 'court');
    assert.deepEqual(details, [`court: more than ${String(FILTER_LIMITS.court.values)} values (51 given)`]);
    const semantic = refused(
      await post('/search/cases/semantic', { query: 'land acquisition', filters: { court: parts } }),
      'filters.court',
    );
    assert.equal(semantic.length, 1);
    const known = Array.from({ length: FILTER_LIMITS.court.values }, () => 'SC').join(',');
    assert.equal((await post('/search/cases', { query: 'land', court: known })).status, 200);
  });

  it('refuses a filter value longer than its cap', async () => {
    refused(await post('/search/cases', { query: 'land', court: 'S'.repeat(FILTER_LIMITS.court.length + 1) }), 'court');
    refused(
      await post('/search/cases', { query: 'land', caseType: ['Civil Appeal', 'C'.repeat(FILTER_LIMITS.caseType.length + 1)] }),
      'caseType.1',
    );
    refused(await post('/search/cases', { query: 'land', caseNumber: 'N'.repeat(FILTER_LIMITS.caseNumber.length + 1) }), 'caseNumber');
    refused(await post('/search/cases/semantic', { query: 'land acquisition', filters: { caseYear: '2'.repeat(17) } }), 'filters.caseYear');
    refused(await post('/search/cases', { query: 'land', searchAfter: 'c'.repeat(129) }), 'searchAfter');
  });

  it('quotes at most the first characters of a value it cannot read', async () => {
    const name = `Court of ${'Narnia '.repeat(130)}`;
    const [detail] = refused(await post('/search/cases', { query: 'land', court: name.slice(0, FILTER_LIMITS.court.length) }), 'court');
    assert.equal(detail, `court: unknown court ${JSON.stringify(`${name.slice(0, ECHO_MAX_CHARACTERS)}…`)}; see GET /reference/courts`);
    const [year] = refused(await post('/search/cases', { query: 'land', year: '1'.repeat(16) }), 'year');
    assert.match(year!, /received "1111111111111111"$/);
  });

  it('names at most ten unrecognised fields, each cut short', async () => {
    const body = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`${String(i)}${'x'.repeat(5_000)}`, 1]));
    // Ten names of at most 61 characters (60 and "…"), with their separators.
    const [detail] = refused(await post('/request-timeline', { ...body, cnr: 'GAHC010225502018' }), '(body)', 700);
    assert.match(detail!, /and 15 more$/);
  });

  it('refuses a CNR, a litigation-check court and a since date longer than their caps', async () => {
    refused(await post('/request-timeline', { cnr: ' '.repeat(13) + 'GAHC01-022550-2018' }), 'cnr');
    const check = { name: 'Ramesh Kumar Sharma', entityType: 'person', purpose: 'kyc' };
    refused(await post('/party/screen', { ...check, court: 'C'.repeat(201) }), 'court');
    refused(await post('/party/screen', { ...check, since: '2019-01-011' }), 'since');
  });

  it('charges nothing for any of these refusals (the one search within the caps is charged)', async () => {
    assert.equal((await t.application.credits.balance(account)).balance, CREDITS - PRICES.keywordSearch.credits);
  });
});
