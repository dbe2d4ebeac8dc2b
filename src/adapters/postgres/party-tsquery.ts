/**
 * tsquery text for party names as users type them: each word ORed with its corpus-derived
 * variants ("assocn" | "association"), and a single letter as a prefix of a party-name word
 * (weight A), so "R K Sharma" meets "Ram Kumar Sharma". Words are [a-z0-9] only (the query
 * analysis and the name normalisation leave nothing else), so the text is always valid
 * tsquery syntax. Pure.
 */
import { expandWords, type PartySynonyms } from '../../domain/search/party-synonyms.ts';

function term(variants: readonly string[], weight: string): string {
  const [word = ''] = variants;
  if (/^[a-z]$/.test(word)) return `${word}:*A`;
  const parts = variants.map((v) => `${v}${weight}`);
  return parts.length === 1 ? (parts[0] ?? '') : `(${parts.join(' | ')})`;
}

/**
 * Every word required, variants as alternatives; `weight` ':A' limits the full words to
 * party names too. '' when no word is left.
 */
export function expandedTsQuery(words: readonly string[], synonyms: PartySynonyms, weight: '' | ':A' = ''): string {
  const plain = words.filter((w) => /^[a-z0-9]+$/.test(w));
  return expandWords([...new Set(plain)], synonyms)
    .map((variants) => term(variants, weight))
    .join(' & ');
}

/**
 * The keyword search's tsquery text, or null when the query uses web-search syntax
 * (quotes, a leading '-', "or"), which `websearch_to_tsquery` reads as typed.
 */
export function keywordTsQuery(words: string, synonyms: PartySynonyms): string | null {
  if (words === '' || /["-]|\bor\b/.test(words)) return null;
  return expandedTsQuery(words.split(' '), synonyms);
}
