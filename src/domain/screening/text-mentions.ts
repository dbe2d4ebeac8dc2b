/**
 * Finding a name or a place in a record's free text (judgment text, cause title). Long
 * judgments mention many people, so a mention here is stricter than a party-name match:
 * the words must follow in order, each spelt the same, sounding the same or given as an
 * initial, with at least two words and one of them written out. Places match word for word.
 * Phonetic keys are computed once per distinct word of the text. A judgment runs to some
 * 90,000 words, so reading it into words pauses every WORDS_PER_STEP words
 * (`textWordsSteps`, see domain/steps.ts). Pure.
 */
import { finish, type Steps } from '../steps.ts';
import type { NameToken, NameTokens } from './party-parse.ts';
import { canonicalToken, phoneticKey } from './phonetic.ts';

/** Words read between two pauses of `textWordsSteps`: a few milliseconds of work. */
const WORDS_PER_STEP = 8_192;

export interface TextWord {
  canon: string;
  start: number;
  end: number;
}

export interface TextWords {
  words: readonly TextWord[];
  keyOf: (canon: string) => string;
}

export interface Mention {
  start: number;
  end: number;
  /** Index of the first word, for nearness between mentions. */
  word: number;
  /** Mean agreement: 1 spelt the same, 0.95 sounding the same, 0.8 an initial. */
  score: number;
}

export function textWords(text: string): TextWords {
  return finish(textWordsSteps(text));
}

/** `textWords`, pausing every WORDS_PER_STEP words. */
export function* textWordsSteps(text: string): Steps<TextWords> {
  const upper = text.toUpperCase();
  // Upper-casing keeps offsets unless a letter expands ("ß" to "SS"); then go word by word.
  const source = upper.length === text.length ? upper : text;
  const words: TextWord[] = [];
  for (const m of source.matchAll(/[\p{L}\p{N}]+/gu)) {
    words.push({ canon: canonicalToken(source === upper ? m[0] : m[0].toUpperCase()), start: m.index, end: m.index + m[0].length });
    if (words.length % WORDS_PER_STEP === 0) yield;
  }
  const keys = new Map<string, string>();
  const keyOf = (canon: string): string => {
    let key = keys.get(canon);
    if (key === undefined) {
      key = phoneticKey(canon);
      keys.set(canon, key);
    }
    return key;
  };
  return { words, keyOf };
}

/** The first letter `phoneticKey` gives a word, without computing the whole key. */
function keyInitial(canon: string): string {
  const first = canon.charAt(0);
  if (first === 'P') return canon.charAt(1) === 'H' ? 'F' : 'P';
  return { W: 'V', Z: 'J', Q: 'K', X: 'K' }[first] ?? first;
}

function wordAgreement(word: TextWord, token: NameToken, keyOf: (canon: string) => string): number {
  if (word.canon === token.canon) return 1;
  if (token.initial) return word.canon.startsWith(token.canon) ? 0.8 : 0;
  if (word.canon.length === 1) return token.canon.startsWith(word.canon) ? 0.8 : 0;
  if (keyInitial(word.canon) !== token.key.charAt(0)) return 0;
  return keyOf(word.canon) === token.key ? 0.95 : 0;
}

/** Words a written name may carry between its tokens ("State of Madras") that tokens leave out. */
const JOINERS: ReadonlySet<string> = new Set(['OF', 'THE', 'AND']);

/** Every in-order mention of a name of two or more words. */
export function findMentions(text: TextWords, name: NameTokens): Mention[] {
  const tokens = name.filter((t) => !t.form);
  if (tokens.length < 2 || tokens.every((t) => t.initial)) return [];
  const mentions: Mention[] = [];
  const { words, keyOf } = text;
  for (let i = 0; i < words.length; i++) {
    let sum = 0;
    let written = false;
    let k = i;
    let j = 0;
    for (; j < tokens.length; j++, k++) {
      while (j > 0 && JOINERS.has(words[k]?.canon ?? '')) k++;
      const word = words[k];
      const token = tokens[j];
      if (word === undefined || token === undefined) break;
      const agreement = wordAgreement(word, token, keyOf);
      if (agreement === 0) break;
      sum += agreement;
      written ||= agreement > 0.8;
    }
    const first = words[i];
    const last = words[k - 1];
    if (j === tokens.length && written && first !== undefined && last !== undefined)
      mentions.push({ start: first.start, end: last.end, word: i, score: sum / tokens.length });
  }
  return mentions;
}

/** Every mention of a place ("NEW DELHI"), word for word. */
export function findPlace(text: TextWords, place: string): Mention[] {
  const parts = place.split(' ').filter((p) => p !== '');
  const mentions: Mention[] = [];
  const { words } = text;
  if (parts.length === 0) return mentions;
  for (let i = 0; i + parts.length <= words.length; i++) {
    if (!parts.every((p, k) => words[i + k]?.canon === p)) continue;
    const first = words[i];
    const last = words[i + parts.length - 1];
    if (first !== undefined && last !== undefined) mentions.push({ start: first.start, end: last.end, word: i, score: 1 });
  }
  return mentions;
}
