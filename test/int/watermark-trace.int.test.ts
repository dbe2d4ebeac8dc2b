/**
 * `court-records admin watermark trace FILE` against real databases: billing accounts
 * made through the account commands, a real judgment watermarked for one of them, an
 * extract of it written to a file, and the CLI naming that account (organisation or
 * user outside any organisation), refusing to name anyone for unwatermarked text, and
 * answering a bad command line with usage.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { HmacApiKeyCodec } from '../../src/adapters/crypto/api-key-codec.ts';
import { ScryptPasswordHasher } from '../../src/adapters/crypto/scrypt-password-hasher.ts';
import { watermarkTagger } from '../../src/adapters/crypto/watermark-tag.ts';
import { PostgresSubjectKeys } from '../../src/adapters/postgres/subject-keys.ts';
import { PostgresEventStore } from '../../src/adapters/postgres/event-store.ts';
import { AccountsService } from '../../src/application/accounts/accounts-service.ts';
import { accountsReadModel } from '../../src/application/accounts/read-model.ts';
import { billingAccountOf } from '../../src/application/credits/credits-service.ts';
import { runWatermark } from '../../src/cli/watermark.ts';
import { embed } from '../../src/domain/watermark/embed.ts';
import { randomIds } from '../../src/ports/clock.ts';
import { enterpriseUser } from '../support/access-fixture.ts';
import { KEY_HASH_SECRET, KEY_PREFIXES } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

const SECRET = 'watermark-secret-for-trace-tests-0001';
const operator = { kind: 'operator' } as const;

const judgment = (
  JSON.parse(readFileSync(join(corpusDir, 'sc-judgments-text-inabs-sample/in_abs_sample.jsonl'), 'utf8').split('\n')[3]!) as {
    judgement: string;
  }
).judgement;

function unwrap<T>(result: { ok: true; value: T } | { ok: false; error: { tag: string } }): T {
  if (!result.ok) throw new Error(`fixture step refused: ${result.error.tag}`);
  return result.value;
}

for (const factory of databases) {
  describe(`watermark trace CLI (${factory.name})`, () => {
    let database: TestDatabase;
    let dir: string;
    const ids: Record<'firm' | 'otherFirm' | 'solo' | 'otherSolo' | 'member', string> = {
      firm: '',
      otherFirm: '',
      solo: '',
      otherSolo: '',
      member: '',
    };

    before(async () => {
      database = await factory.open();
      dir = mkdtempSync(join(tmpdir(), 'watermark-trace-'));
      const accounts = new AccountsService({
        db: database.db,
        store: new PostgresEventStore(database.db, [accountsReadModel]),
        clock: { now: () => new Date() },
        ids: randomIds,
        keys: new HmacApiKeyCodec(KEY_PREFIXES, KEY_HASH_SECRET),
        passwords: new ScryptPasswordHasher(),
        subjectKeys: new PostgresSubjectKeys(database.db),
      });
      const organization = async (name: string) =>
        unwrap(await accounts.createOrganization({ name, allowlist: [], strictAllowlist: false }, operator)).organizationId;
      const user = async (email: string, organizationId: string | null) =>
        unwrap(await accounts.registerUser(enterpriseUser(email, { organizationId }), operator)).userId;
      ids.firm = await organization('Verma & Rao Advocates');
      ids.otherFirm = await organization('Iyer Legal LLP');
      ids.member = await user('member@verma.example', ids.firm);
      ids.solo = await user('solo@advocate.example', null);
      ids.otherSolo = await user('other@advocate.example', null);
    });
    after(async () => {
      rmSync(dir, { recursive: true, force: true });
      await database.close();
    });

    async function trace(text: string, env: Record<string, string | undefined> = {}, secret: string | null = SECRET) {
      const file = join(dir, `extract-${Math.random().toString(36).slice(2)}.txt`);
      writeFileSync(file, text);
      let stdout = '';
      let stderr = '';
      const code = await runWatermark(['trace', file], {
        stdout: { write: (chunk: string) => (stdout += chunk) },
        stderr: { write: (chunk: string) => (stderr += chunk) },
        env,
        open: async () => ({ ...database, close: async () => undefined }),
        ...(secret === null ? {} : { secret }),
      });
      return { code, stderr, printed: stdout ? (JSON.parse(stdout) as Record<string, unknown>) : null };
    }

    /** A 600-character extract of the judgment as fetched by this billing account. */
    const leaked = (accountId: string, secret = SECRET) => embed(judgment, watermarkTagger(secret)(accountId)).slice(4000, 4600);

    it("names the organisation a member's key bills to", async () => {
      const accountId = billingAccountOf({ userId: ids.member, organizationId: ids.firm });
      const { code, printed, stderr } = await trace(leaked(accountId));
      assert.equal(code, 0, stderr);
      assert.equal(printed?.accountId, ids.firm);
      assert.equal(printed.kind, 'organization');
      assert.equal(printed.name, 'Verma & Rao Advocates');
      assert.ok(typeof printed.confidence === 'number' && printed.confidence > 0.9999, String(printed.confidence));
      assert.equal(printed.candidates, 4);
    });

    it('names a user outside any organisation, after whitespace is collapsed', async () => {
      const { code, printed } = await trace(leaked(ids.solo).replace(/\s+/g, ' '));
      assert.equal(code, 0);
      assert.equal(printed?.accountId, ids.solo);
      assert.equal(printed.kind, 'user');
      assert.equal(printed.name, 'Test solo');
    });

    it('traces a saved JSON response whose marks are escaped', async () => {
      const body = JSON.stringify({ data: { caseId: 'SC-1951-78', judgmentText: leaked(ids.otherSolo) } });
      const escaped = body.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      assert.match(escaped, /\\u200/);
      const { code, printed } = await trace(escaped);
      assert.equal(code, 0);
      assert.equal(printed?.accountId, ids.otherSolo);
    });

    it('takes the secret from KEY_HASH_SECRET when none is given', async () => {
      const secret = 'k'.repeat(40);
      const { code, printed } = await trace(leaked(ids.otherFirm, secret), { KEY_HASH_SECRET: secret }, null);
      assert.equal(code, 0, JSON.stringify(printed));
      assert.equal(printed?.accountId, ids.otherFirm);
    });

    it('names nobody for an unwatermarked extract', async () => {
      const { code, printed } = await trace(judgment.slice(4000, 4600));
      assert.equal(code, 1);
      assert.equal(printed?.found, false);
      assert.equal(printed.reason, 'no-watermark');
    });

    it('names nobody when the text was watermarked under another secret', async () => {
      const { code, printed } = await trace(leaked(ids.solo, 'a-different-secret-entirely-000000'));
      assert.equal(code, 1);
      assert.equal(printed?.reason, 'insufficient-evidence');
    });

    it('answers a bad command line with usage and exit 2', async () => {
      const io = { stdout: { write: () => true }, stderr: { write: () => true }, env: {} };
      assert.equal(await runWatermark(['trace'], io), 2);
      assert.equal(await runWatermark(['decode', 'x'], io), 2);
      assert.equal(await runWatermark(['trace', join(dir, 'missing.txt')], io), 2);
    });
  });
}
