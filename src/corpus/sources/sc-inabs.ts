/**
 * A hundred Supreme Court judgments with abstractive summaries (IN-Abs subset, via
 * Saloni-sharma29/JNU). No structured metadata: the case number is the first line of the
 * text, which the source often cut mid-word ("iminal Appeal No. 48 of 1954", "N: Civil
 * Appeal ..." left over from "JURISDICTION:"). A cut first word is completed only when
 * exactly one case-line word ends that way ("iminal" → "Criminal"); otherwise it is kept
 * as printed. Both cases are flagged with the verbatim line. Mostly no decision date,
 * parties or bench in the text, so those stay empty.
 */
import { supremeCourtCaseType } from '../../domain/case/case-type.ts';
import { z } from 'zod';
import { buildCaseRecord, rejected, SUPREME_COURT, type MapResult, type Quirk } from '../../domain/case/case-record.ts';
import { parseMonthName } from '../../domain/case/dates.ts';
import { findJurisdictionCaseLine, readCaseLine } from './judgment-text.ts';
import { describeIssues, readJsonl, type CorpusSource } from './source.ts';

export const SC_INABS_SOURCE = 'sc-judgments-text-inabs-sample';
const FILE = 'in_abs_sample.jsonl';

const InAbsRow = z.object({ doc_id: z.string(), judgement: z.string(), summary: z.string().nullable().optional() });

/** Words a Supreme Court case line starts with. */
const CASE_LINE_WORDS = [
  'Civil',
  'Criminal',
  'Appeal',
  'Appeals',
  'Petition',
  'Petitions',
  'Writ',
  'Miscellaneous',
  'Cases',
  'Special',
  'Transfer',
  'Review',
  'No',
  'Nos',
];

/** Completes a cut first word when exactly one case-line word ends with it. */
export function completeCutWord(line: string): { line: string; completed: boolean } {
  const m = /^([a-z]+)\b/.exec(line);
  if (!m || !m[1]) return { line, completed: false };
  const cut = m[1];
  const candidates = CASE_LINE_WORDS.filter((w) => w.length > cut.length && w.toLowerCase().endsWith(cut));
  if (candidates.length !== 1 || !candidates[0]) return { line, completed: false };
  return { line: candidates[0] + line.slice(cut.length), completed: true };
}

/**
 * A line holding only a date (an optional stop after it). It is entered at the first line
 * break of a blank run only, and the line end is read without trading spaces between two
 * `\s*`: a run of blank lines is scanned once.
 */
const MONTH_DATE_LINE =
  /(?:^|\n(?<!\n\s*?\n))\s*((?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2}\s*,\s*\d{4})[^\S\n]*(?:\.[^\S\n]*)?\n/;

export function mapInAbsRow(ref: string, json: unknown): MapResult {
  const parsed = InAbsRow.safeParse(json);
  if (!parsed.success) return rejected(ref, `unparseable row: ${describeIssues(parsed.error.issues)}`);
  const { doc_id: docId, judgement: text, summary } = parsed.data;
  const quirks: Quirk[] = [];

  // "N: ", "ION: ", ": " are what remains of "... JURISDICTION:" at the cut.
  const head = text
    .slice(0, 800)
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[A-Z]*:\s*/, '');
  const { line: repaired, completed } = completeCutWord(head);
  const opening = readCaseLine(repaired, 'lenient');
  // A few texts open with the tail of the headnote; the case line follows "JURISDICTION:".
  const caseLine = opening ?? findJurisdictionCaseLine(text);
  if (!caseLine) return rejected(ref, 'missing case number: no case line at the start or after "JURISDICTION:"');
  if (opening) {
    const verbatim = head.slice(0, opening.text.length - (repaired.length - head.length));
    if (completed) {
      quirks.push({ field: 'caseNumber', issue: 'first word cut in source; completed', value: verbatim });
    } else if (/^[a-z]/.test(head)) {
      quirks.push({ field: 'caseNumber', issue: 'first word cut in source; kept as printed', value: verbatim });
    }
  }
  if (caseLine.type === null) quirks.push({ field: 'caseType', issue: 'case type cut away in source', value: caseLine.text });
  if (caseLine.year === null) quirks.push({ field: 'caseNumber', issue: 'no year in the case line', value: caseLine.text });

  const dateLine = MONTH_DATE_LINE.exec(text.slice(0, 6000))?.[1] ?? null;
  // The name starts after all the spaces: `\s+` and the name never trade them.
  const deliveredBy = /delivered by\s+(?!\s)([^\r\n]*?(?:C\.\s?J|J)\.)/.exec(text.slice(0, 20000))?.[1] ?? null;

  return buildCaseRecord({
    caseId: `sc-inabs-${docId}`,
    source: SC_INABS_SOURCE,
    sourceRef: ref,
    caseNumber: caseLine.text,
    caseNumberYear: caseLine.year,
    court: SUPREME_COURT,
    bench: null,
    caseType: supremeCourtCaseType(caseLine.type),
    title: null,
    parties: { petitioners: [], respondents: [] },
    judges: [],
    decisionDate: parseMonthName(dateLine?.replace(/(?<!\s)\s*,\s*/, ', ')),
    filingDate: null,
    citations: [],
    text,
    summary: summary ?? null,
    documentBearing: true,
    quirks,
    extra: { inAbsDocId: docId, deliveredBy: deliveredBy?.replace(/\s+/g, ' ').trim() ?? null },
  });
}

export const scInAbsSource: CorpusSource = {
  name: SC_INABS_SOURCE,
  folder: 'sc-judgments-text-inabs-sample',
  rowFiles: [FILE],
  async *read({ folderPath }) {
    for await (const line of readJsonl(`${folderPath}/${FILE}`, FILE)) {
      yield 'error' in line.value ? rejected(line.ref, `unparseable JSON: ${line.value.error}`) : mapInAbsRow(line.ref, line.value.json);
    }
  },
};
