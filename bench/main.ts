/** `npm run bench`: prints every benchmark's figures (medians) and ratios. */
import { benchEventStore } from './event-store.bench.ts';
import { table } from './stats.ts';

const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

console.log('Event store appends per second (durable; median of 5 runs)');
const figures = await benchEventStore(adminUrl);
const pg = figures.postgres;
console.log(
  table([
    ['scenario', 'pglite', 'postgres', 'postgres/pglite'],
    [
      '1 stream, sequential, expected version',
      figures.pglite.single,
      pg ? pg.single : 'n/a',
      pg ? pg.single / figures.pglite.single : 'n/a',
    ],
    ['1,000 new streams, 10 writers', figures.pglite.many, pg ? pg.many : 'n/a', pg ? pg.many / figures.pglite.many : 'n/a'],
  ]),
);
if (!pg) console.log('(PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)');
