import { readFileSync } from 'node:fs';
import { loadUseLite, embedBatch } from '../src/adapters/embeddings/use-lite-model.ts';
const rows = readFileSync('/work/shared/data/sc-judgments-text-inabs-sample/in_abs_sample.jsonl', 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { summary: string });
const m = await loadUseLite();
await embedBatch(m, ['warm up']);
for (const n of [2000, 5000, 9000]) { const s = rows.map((r) => r.summary).find((x) => x.length >= n)!.slice(0, n); const t = performance.now(); await embedBatch(m, [s]); console.log(n, Math.round(performance.now() - t)); }
