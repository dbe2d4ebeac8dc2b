import { benchCharging } from './charging.bench.ts';
const c = await benchCharging(process.env.TEST_DATABASE_URL!, '../shared/data', process.env.TEST_REDIS_URL);
console.log(JSON.stringify({ scaled: c.scaled, me: c.me, judgesHot: c.judgesHot, judgesSpread: c.judgesSpread, searchHot: c.searchHot, searchSpread: c.searchSpread, single: c.searchSingleClient, bare: c.bareIndex, lag: c.auditLagMs }, null, 1));
