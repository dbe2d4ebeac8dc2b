/**
 * A stand-in for the party-name search that feeds a litigation check, so the evaluation set
 * holds the candidates a real screening would score rather than hand-picked ones. The port
 * admits cases whose party names contain every word of the query or are close in spelling
 * (trigrams); this ranks distinct party names by trigram Dice plus the share of the query's
 * rare words they contain, then expands names to their cases. Names go through the search
 * normaliser the adapters use, so "M/S. P.J. CHEMICALS LTD." and "P J Chemicals" meet.
 */
import { normalisePartyName } from '../../src/domain/search/party-name.ts';
import type { CorpusCase } from './corpus.ts';

export interface RetrievalIndex {
  names: string[];
  nameCases: number[][];
  nameTrigramCount: number[];
  trigrams: Map<string, number[]>;
  words: Map<string, number[]>;
}

/** Trigrams found in more names than this say nothing about which name; they are not walked. */
const COMMON_TRIGRAM = 3000;
/** Below this a name shares too little with the query to be worth ranking. */
const MIN_SCORE = 0.3;

function trigramsOf(name: string): Set<string> {
  const padded = `  ${name} `;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= padded.length; i += 1) out.add(padded.slice(i, i + 3));
  return out;
}

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else if (list[list.length - 1] !== value) list.push(value);
}

export function buildRetrievalIndex(cases: readonly CorpusCase[]): RetrievalIndex {
  const byName = new Map<string, number>();
  const index: RetrievalIndex = { names: [], nameCases: [], nameTrigramCount: [], trigrams: new Map(), words: new Map() };
  cases.forEach((c, caseIndex) => {
    for (const party of c.parties) {
      const name = normalisePartyName(party.name);
      if (name === '') continue;
      let id = byName.get(name);
      if (id === undefined) {
        id = index.names.length;
        byName.set(name, id);
        index.names.push(name);
        index.nameCases.push([]);
        const grams = trigramsOf(name);
        index.nameTrigramCount.push(grams.size);
        for (const g of grams) push(index.trigrams, g, id);
        for (const w of new Set(name.split(' '))) push(index.words, w, id);
      }
      const list = index.nameCases[id]!;
      if (list[list.length - 1] !== caseIndex) list.push(caseIndex);
    }
  });
  return index;
}

/**
 * Case indices for the screened names, best first, at most `limit`, and at most `perName`
 * cases of one spelling (a common name would otherwise fill the page with itself).
 */
export function retrieve(index: RetrievalIndex, queryNames: readonly string[], limit: number, perName: number): number[] {
  const total = index.names.length;
  const best = new Float64Array(total);
  const shared = new Float64Array(total);
  const share = new Float64Array(total);
  const touchedAll: number[] = [];
  for (const raw of queryNames) {
    const query = normalisePartyName(raw);
    if (query === '') continue;
    const touched: number[] = [];
    const grams = trigramsOf(query);
    for (const g of grams) {
      const posting = index.trigrams.get(g);
      if (posting === undefined || posting.length > COMMON_TRIGRAM) continue;
      for (const id of posting) {
        if (shared[id] === 0 && share[id] === 0) touched.push(id);
        shared[id] = shared[id]! + 1;
      }
    }
    const words = [...new Set(query.split(' '))];
    const idf = words.map((w) => Math.max(0, Math.log(total / (1 + (index.words.get(w)?.length ?? 0)))));
    const idfTotal = idf.reduce((a, b) => a + b, 0) || 1;
    words.forEach((w, i) => {
      for (const id of index.words.get(w) ?? []) {
        if (shared[id] === 0 && share[id] === 0) touched.push(id);
        share[id] = share[id]! + idf[i]! / idfTotal;
      }
    });
    for (const id of touched) {
      const score = (2 * shared[id]!) / (grams.size + index.nameTrigramCount[id]!) + 0.5 * share[id]!;
      if (score >= MIN_SCORE && score > best[id]!) {
        if (best[id] === 0) touchedAll.push(id);
        best[id] = score;
      }
      shared[id] = 0;
      share[id] = 0;
    }
  }
  const ranked = touchedAll.sort((a, b) => best[b]! - best[a]! || a - b);
  const out: number[] = [];
  const seen = new Set<number>();
  for (const id of ranked) {
    for (const caseIndex of index.nameCases[id]!.slice(0, perName)) {
      if (seen.has(caseIndex)) continue;
      seen.add(caseIndex);
      out.push(caseIndex);
      if (out.length >= limit) return out;
    }
  }
  return out;
}
