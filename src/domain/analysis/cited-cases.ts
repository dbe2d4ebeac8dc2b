/**
 * The authorities a judgment cites, each once, split by how the judgment treats them.
 * Citations printed back to back with only punctuation between ("[1981] 2 SCR 516 = AIR
 * 1981 SC 746") are parallel reports of one case; a case met again under any of its
 * citations, or under the same name, is the same entry. The treatment is read from the
 * stretch of the sentence that belongs to the reference (up to the neighbouring
 * references), plus the next sentence when it opens by pointing back ("That decision is
 * distinguishable ..."). Pure.
 */
import type { Citation, CitedCase, CitedCases, Treatment } from './case-analysis.ts';
import { nameBefore, namedReferences } from './case-names.ts';
import { citationKey, findCitations } from './citations.ts';
import { strongest, treatmentIn } from './citation-treatment.ts';

export interface CitingSentence {
  readonly text: string;
  readonly paragraph: number;
}

interface Reference {
  readonly start: number;
  readonly end: number;
  readonly citations: readonly Citation[];
  readonly name: string | null;
}

interface Entry {
  name: string | null;
  citations: Citation[];
  keys: Set<string>;
  paragraphs: Set<number>;
  treatment: Treatment;
}

const PARALLEL_GAP = /^[\s,:;=&/-]*(?:(?:and|also|reported in|see also)[\s,:;=&/-]*)?$/i;
const POINTS_BACK =
  /^(?:that|this|the said|the above|these|those|such|the aforesaid|the)\s+(?:case|cases|decision|decisions|judgment|judgments|ruling|rulings|authority|authorities|view)\b/i;

function referencesIn(text: string, lowerCase: boolean): Reference[] {
  const groups: { start: number; end: number; citations: Citation[] }[] = [];
  for (const match of findCitations(text)) {
    const last = groups.at(-1);
    if (last && PARALLEL_GAP.test(text.slice(last.end, match.start))) {
      last.end = match.end;
      last.citations.push(match.citation);
    } else groups.push({ start: match.start, end: match.end, citations: [match.citation] });
  }
  const cited = groups.map((g, i) => ({ ...g, name: nameBefore(text.slice(groups[i - 1]?.end ?? 0, g.start), lowerCase) }));
  const named = lowerCase
    ? []
    : namedReferences(text)
        .filter((n) => !groups.some((g) => g.start >= n.start && g.start - n.end < 16))
        .map((n) => ({ start: n.start, end: n.end, citations: [], name: n.name }));
  return [...cited, ...named].sort((a, b) => a.start - b.start);
}

function nameKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/\b(?:vs|versus)\b/g, 'v')
    .replace(/[^a-z]/g, '');
}

/** The cases cited in these sentences (footnote marks glued to a name, "Bengal(5)", are spaced off first), by treatment, each entry naming the paragraphs that cite it. */
export function citedCasesIn(sentences: readonly CitingSentence[], caseId: string, lowerCase: boolean): CitedCases {
  const entries: Entry[] = [];
  const texts = sentences.map((s) => s.text.replace(/(\S)\((\d{1,2}|supra)\)/gi, '$1 ($2)'));
  sentences.forEach((sentence, i) => {
    const text = texts[i]!;
    const refs = referencesIn(text, lowerCase);
    const next = texts[i + 1] ?? '';
    const followUp = POINTS_BACK.test(next) ? treatmentIn(next) : 'referred';
    refs.forEach((ref, k) => {
      const window = text.slice(refs[k - 1]?.end ?? 0, refs[k + 1]?.start ?? text.length);
      const treatment = strongest(treatmentIn(window), followUp);
      const keys = ref.citations.map(citationKey);
      const name = ref.name === null ? null : nameKey(ref.name);
      let entry = entries.find(
        (e) => keys.some((key) => e.keys.has(key)) || (name !== null && e.name !== null && nameKey(e.name) === name),
      );
      if (!entry) {
        entry = { name: ref.name, citations: [], keys: new Set(), paragraphs: new Set(), treatment };
        entries.push(entry);
      }
      ref.citations.forEach((citation, c) => {
        if (entry.keys.has(keys[c]!)) return;
        entry.keys.add(keys[c]!);
        entry.citations.push(citation);
      });
      entry.name ??= ref.name;
      entry.paragraphs.add(sentence.paragraph);
      entry.treatment = strongest(entry.treatment, treatment);
    });
  });
  const byTreatment: Record<Treatment, CitedCase[]> = { followed: [], distinguished: [], overruled: [], referred: [] };
  for (const e of entries) {
    byTreatment[e.treatment].push({
      caseId,
      paragraphs: [...e.paragraphs].sort((a, b) => a - b),
      caseName: e.name,
      citations: e.citations,
    });
  }
  return byTreatment;
}
