/**
 * Per-subject data keys in the subject_keys table (PostgreSQL and PGlite alike), made on
 * first use inside the appending transaction. Erasure nulls the key material and, for
 * events written before sealing existed, blanks their personal fields in place: the one
 * update the events trigger admits, scoped to the erased stream by a transaction-local
 * setting (migration 0018), changing `data` only.
 */
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.ts';
import { jsonb } from '../../db/jsonb.ts';
import { isSealed, PERSONAL_FIELDS, personalSubject } from '../../domain/personal-data/personal-fields.ts';
import type { ErasureOutcome, SubjectKeys } from '../../ports/subject-keys.ts';

const KEY_BYTES = 32;

export class PostgresSubjectKeys implements SubjectKeys<Trx> {
  constructor(private readonly db: Db) {}

  async obtain(subjectId: string, trx: Trx): Promise<Uint8Array | 'shredded'> {
    const fresh = Buffer.from(crypto.getRandomValues(new Uint8Array(KEY_BYTES))).toString('base64');
    await trx
      .insertInto('subjectKeys')
      .values({ subjectId, material: fresh, createdAt: sql<Date>`now()`, shreddedAt: null })
      .onConflict((oc) => oc.column('subjectId').doNothing())
      .execute();
    const row = await trx.selectFrom('subjectKeys').select('material').where('subjectId', '=', subjectId).executeTakeFirstOrThrow();
    return row.material === null ? 'shredded' : new Uint8Array(Buffer.from(row.material, 'base64'));
  }

  async find(subjectIds: readonly string[], trx?: Trx): Promise<ReadonlyMap<string, Uint8Array>> {
    if (subjectIds.length === 0) return new Map();
    const rows = await (trx ?? this.db)
      .selectFrom('subjectKeys')
      .select(['subjectId', 'material'])
      .where('subjectId', 'in', subjectIds)
      .where('material', 'is not', null)
      .execute();
    return new Map(rows.map((row) => [row.subjectId, new Uint8Array(Buffer.from(row.material!, 'base64'))]));
  }

  async erase(subject: { subjectId: string; streamIds: readonly string[] }, at: Date, trx: Trx): Promise<ErasureOutcome> {
    const shredded = await trx
      .updateTable('subjectKeys')
      .set({ material: null, shreddedAt: at })
      .where('subjectId', '=', subject.subjectId)
      .where('material', 'is not', null)
      .executeTakeFirst();
    // A subject with no key yet gets a shredded row: nothing can be sealed for them from now on.
    await trx
      .insertInto('subjectKeys')
      .values({ subjectId: subject.subjectId, material: null, createdAt: at, shreddedAt: at })
      .onConflict((oc) => oc.column('subjectId').doNothing())
      .execute();
    let redacted = 0;
    for (const streamId of subject.streamIds) redacted += await this.#redactPlaintext(subject.subjectId, streamId, trx);
    return { keyShredded: Number(shredded.numUpdatedRows) > 0, plaintextEventsRedacted: redacted };
  }

  async #redactPlaintext(subjectId: string, streamId: string, trx: Trx): Promise<number> {
    const rows = await trx
      .selectFrom('events')
      .select(['globalPosition', 'type', 'data'])
      .where('streamId', '=', streamId)
      .where('type', 'in', Object.keys(PERSONAL_FIELDS))
      .orderBy('globalPosition')
      .execute();
    let redacted = 0;
    for (const row of rows) {
      if (personalSubject(row.type, row.data) !== subjectId) continue;
      const data = { ...(row.data as Record<string, unknown>) };
      const plain = PERSONAL_FIELDS[row.type]!.fields.filter(
        (field) => data[field] !== undefined && data[field] !== null && !isSealed(data[field]),
      );
      if (plain.length === 0) continue;
      for (const field of plain) data[field] = null;
      await sql`select set_config('court_records.erasing_stream', ${streamId}, true)`.execute(trx);
      await trx
        .updateTable('events')
        .set({ data: jsonb(data) })
        .where('globalPosition', '=', row.globalPosition)
        .execute();
      redacted += 1;
    }
    return redacted;
  }
}
