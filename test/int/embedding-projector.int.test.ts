/**
 * The embedding projector's bookkeeping over the real full-text judgments (Indian Kanoon
 * 50 and IN-Abs): what it writes to case_chunks, where it resumes, and what it re-embeds.
 * The embedder here is a FAKE (eight numbers from a hash of each text, not a language
 * model): what is tested is which texts reach the embedder and which rows result, and a
 * fake can count its calls, fail on cue and take a second model name. The real model's
 * vectors are tested in local-embedder.int.test.ts and vector-index.int.test.ts. The same
 * suite runs on PGlite and on PostgreSQL; a PostgreSQL without pgvector, where the
 * migration left case_chunks out, is reported as a skip.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { vectorStoreAvailable } from '../../src/adapters/postgres/vector-index.ts';
import { ingestCorpus } from '../../src/corpus/ingest.ts';
import { scIk50Source } from '../../src/corpus/sources/sc-ik50.ts';
import { scInAbsSource } from '../../src/corpus/sources/sc-inabs.ts';
import { chunkCase, USE_LITE_CHUNKING } from '../../src/domain/semantic/chunking.ts';
import type { Embedder } from '../../src/ports/embedder.ts';
import {
  embeddable,
  EmbeddingProjector,
  embeddingProjectorName,
  type EmbeddingProgress,
} from '../../src/projections/embedding-projector.ts';
import { caseRowToSearchDocument } from '../../src/projections/search-index-projector.ts';
import { corpusDir } from '../support/corpus.ts';
import { databases, type TestDatabase } from '../support/databases.ts';

const now = () => new Date('2026-01-01T00:00:00Z');
const CHUNKING = { ...USE_LITE_CHUNKING, maxChunks: 4 };
const BATCH = 10;

/** A FAKE embedder: a hash of each text spread over eight numbers. Counts what it is given; can fail on a chosen call. */
class FakeHashEmbedder implements Embedder {
  readonly dimensions = 8;
  calls = 0;
  texts: string[] = [];
  failOnCall: number | undefined;

  constructor(readonly model: string) {}

  embed(texts: readonly string[]): Promise<number[][]> {
    this.calls += 1;
    if (this.calls === this.failOnCall) return Promise.reject(new Error('fake embedder failed on cue'));
    this.texts.push(...texts);
    return Promise.resolve(texts.map((t) => [...createHash('sha256').update(t).digest().subarray(0, 8)].map((b) => b / 255 - 0.5)));
  }
}

interface StoredChunk {
  caseId: string;
  chunkNo: number;
  model: string;
  embedding: string;
  withheld: boolean;
}

for (const factory of databases)
  describe(`embedding projector on ${factory.name}`, { timeout: 300_000 }, () => {
    let database: TestDatabase;
    let available = false;
    /** Per case in the feed, the chunks it should have (none when it is outside the subset). */
    let expected: Map<string, number>;
    let rows: number;

    const projector = (embedder: Embedder, onProgress?: (p: EmbeddingProgress) => void) =>
      new EmbeddingProjector(database.db, embedder, { kind: database.kind, now, batchSize: BATCH, chunking: CHUNKING, onProgress });

    async function stored(): Promise<StoredChunk[]> {
      return database.db
        .selectFrom('caseChunks')
        .select(['caseId', 'chunkNo', 'model', 'embedding', 'withheld'])
        .orderBy('caseId')
        .orderBy('chunkNo')
        .execute();
    }

    /** Every case has exactly its chunks, numbered 0..n-1, all of `model`. */
    async function assertComplete(model: string): Promise<void> {
      const chunks = await stored();
      const byCase = new Map<string, number[]>();
      for (const c of chunks) byCase.set(c.caseId, [...(byCase.get(c.caseId) ?? []), c.chunkNo]);
      for (const [caseId, n] of expected) {
        assert.deepEqual(
          byCase.get(caseId) ?? [],
          Array.from({ length: n }, (_, i) => i),
          caseId,
        );
      }
      assert.equal(byCase.size, [...expected.values()].filter((n) => n > 0).length);
      assert.ok(chunks.every((c) => c.model === model));
    }

    before(async () => {
      database = await factory.open();
      available = await vectorStoreAvailable(database.db);
      if (!available) return;
      await ingestCorpus({ db: database.db, corpusDir, now, sources: [scIk50Source, scInAbsSource] });
      const cases = await database.db.selectFrom('cases').selectAll().execute();
      rows = cases.length;
      expected = new Map(
        cases.map((row) => {
          const doc = caseRowToSearchDocument(row);
          return [row.caseId, embeddable(doc) ? chunkCase(doc, CHUNKING).length : 0];
        }),
      );
    });
    after(async () => database.close());

    const test = (name: string, fn: () => Promise<void>) =>
      it(name, async (t) => {
        if (!available) {
          t.skip(`${factory.name} has no pgvector: case_chunks was not created`);
          return;
        }
        await fn();
      });

    test('a crash mid-batch loses that batch only; a new projector resumes from the checkpoint and embeds nothing twice', async () => {
      assert.ok(rows > 100, `${String(rows)} cases ingested`);
      const first = new FakeHashEmbedder('fake-hash-a');
      first.failOnCall = 4;
      const crashing = projector(first);
      for (let i = 0; i < 3; i++) assert.equal(await crashing.runOnce(), BATCH);
      await assert.rejects(crashing.runOnce(), /failed on cue/);
      const written = new Set((await stored()).map((c) => c.caseId));
      assert.ok(written.size > 0 && written.size <= 3 * BATCH);

      const second = new FakeHashEmbedder('fake-hash-a');
      const progress: EmbeddingProgress[] = [];
      const resumed = projector(second, (p) => progress.push(p));
      assert.equal(await resumed.catchUp(), rows - 3 * BATCH);
      await assertComplete('fake-hash-a');

      // Each chunk was embedded exactly once over both projectors.
      const total = [...expected.values()].reduce((a, b) => a + b, 0);
      assert.equal(first.texts.length + second.texts.length, total);
      assert.ok(!second.texts.some((t) => first.texts.includes(t)));

      // Progress: one report per batch, cumulative, adding up to what was read and written.
      assert.equal(progress.length, Math.ceil((rows - 3 * BATCH) / BATCH));
      assert.ok(progress.every((p, i) => p.read === Math.min((i + 1) * BATCH, rows - 3 * BATCH)));
      const last = progress.at(-1);
      assert.ok(last);
      assert.equal(last.chunks, second.texts.length);
      assert.equal(last.embedded, [...expected].filter(([id, n]) => n > 0 && !written.has(id)).length);
      assert.equal(last.updated, 0);
      assert.equal(last.removed, 0);
      assert.deepEqual(resumed.progress, last);

      const checkpoint = await database.db
        .selectFrom('projectorCheckpoints')
        .select('projector')
        .where('projector', '=', embeddingProjectorName(second))
        .executeTakeFirst();
      assert.ok(checkpoint);
      assert.equal(await projector(second).catchUp(), 0);
    });

    test('stop() while running ends after the current batch; the next projector continues where it stopped', async () => {
      await database.db.deleteFrom('caseChunks').execute();
      const embedder = new FakeHashEmbedder('fake-hash-stop');
      let stopping: Promise<void> | undefined;
      const running = projector(embedder, (p) => {
        if (p.read >= 2 * BATCH) stopping ??= running.stop();
      });
      running.start();
      await new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (stopping) {
            clearInterval(poll);
            resolve();
          }
        }, 5);
      });
      await stopping;
      assert.equal(running.progress.read, 2 * BATCH);

      const next = projector(new FakeHashEmbedder('fake-hash-stop'));
      assert.equal(await next.catchUp(), rows - 2 * BATCH);
      await assertComplete('fake-hash-stop');
    });

    test('another model re-embeds every case and replaces its rows', async () => {
      await assertComplete('fake-hash-stop');
      const before = await stored();

      const other = new FakeHashEmbedder('fake-hash-b');
      const switched = projector(other);
      assert.equal(await switched.catchUp(), rows);
      await assertComplete('fake-hash-b');
      const total = [...expected.values()].reduce((a, b) => a + b, 0);
      assert.equal(other.texts.length, total);
      assert.equal(switched.progress.embedded, [...expected.values()].filter((n) => n > 0).length);
      assert.equal(switched.progress.updated, 0);
      // Same texts, same fake vectors: what changed is the model each row names.
      assert.deepEqual(
        (await stored()).map((c) => c.embedding),
        before.map((c) => c.embedding),
      );
    });

    test('a case whose text and summary disappear loses its chunks; a changed text re-embeds that case only', async () => {
      const embedder = new FakeHashEmbedder('fake-hash-b');
      const [gone, changed] = [...expected].filter(([, n]) => n > 1).map(([id]) => id);
      assert.ok(gone && changed);
      await database.db.updateTable('cases').set({ text: null, summary: null }).where('caseId', '=', gone).execute();
      await database.db
        .updateTable('cases')
        .set({ text: sql<string>`'Held: the appeal is allowed. ' || text` })
        .where('caseId', '=', changed)
        .execute();
      const p = projector(embedder);
      assert.equal(await p.catchUp(), 2);
      assert.deepEqual({ ...p.progress, chunks: 0 }, { read: 2, embedded: 1, updated: 0, removed: 1, chunks: 0 });
      const changedRow = await database.db.selectFrom('cases').selectAll().where('caseId', '=', changed).executeTakeFirstOrThrow();
      const changedChunks = chunkCase(caseRowToSearchDocument(changedRow), CHUNKING).map((c) => c.content);
      assert.deepEqual(embedder.texts, changedChunks);
      const chunks = await stored();
      assert.ok(!chunks.some((c) => c.caseId === gone));
      expected.set(changed, changedChunks.length);
      expected.set(gone, 0);
      await assertComplete('fake-hash-b');
    });

    test('a restriction sets withheld on the chunks in place, without embedding anything', async () => {
      const embedder = new FakeHashEmbedder('fake-hash-b');
      const target = [...expected].find(([, n]) => n > 0)?.[0] ?? '';
      const beforeRows = (await stored()).filter((c) => c.caseId === target);
      assert.ok(beforeRows.length > 0 && beforeRows.every((c) => !c.withheld));
      await database.db.updateTable('cases').set({ restricted: true }).where('caseId', '=', target).execute();
      const p = projector(embedder);
      assert.equal(await p.catchUp(), 1);
      assert.deepEqual(p.progress, { read: 1, embedded: 0, updated: 1, removed: 0, chunks: 0 });
      assert.equal(embedder.texts.length, 0);
      const afterRows = (await stored()).filter((c) => c.caseId === target);
      assert.ok(afterRows.every((c) => c.withheld));
      assert.deepEqual(
        afterRows.map((c) => c.embedding),
        beforeRows.map((c) => c.embedding),
      );
      assert.equal((await stored()).filter((c) => c.withheld).length, afterRows.length);
    });
  });
