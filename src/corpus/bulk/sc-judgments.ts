/**
 * Supreme Court judgments from the bulk dataset (vanga/indian-supreme-court-judgments,
 * ~35k judgments 1950 to date from scr.sci.gov.in). One parquet file per year with the
 * columns `title, petitioner, respondent, description, judge, author_judge, citation,
 * case_id, cnr, decision_date, disposal_nature, court, available_languages, raw_html, path,
 * nc_display, scraped_at, year` (process_metadata.py `all_fields` in that repository):
 * `case_id` is the neutral citation shown on the card, `citation` the SCR citation and
 * `path` the judgment's key in the PDF layer, the field that repository deduplicates on.
 *
 * The case id is `path`. The case number is not a column: it is read from the card's
 * `Case No` pair in `raw_html`; without it the CNR stands in (flagged).
 */
import {
  buildCaseRecord,
  rejected,
  SUPREME_COURT,
  titleFromParties,
  type MapResult,
  type Party,
  type Quirk,
} from '../../domain/case/case-record.ts';
import { yearOf } from '../../domain/case/dates.ts';
import { cleanName, stripJudgeTitle } from '../source-text.ts';
import { dateValue, idSegment, oversizedField, splitParties, text, trailingYear, type Row } from './fields.ts';
import type { Partition } from './layout.ts';
import { readResultCard } from './result-card.ts';

export const SC_BULK_SOURCE = 'sc-judgments-bulk';

export const SC_PARQUET_COLUMNS = [
  'title',
  'petitioner',
  'respondent',
  'description',
  'judge',
  'author_judge',
  'citation',
  'case_id',
  'cnr',
  'decision_date',
  'disposal_nature',
  'available_languages',
  'raw_html',
  'path',
  'nc_display',
  'scraped_at',
] as const;

function side(name: string): Party[] {
  const n = cleanName(name);
  return n === '' ? [] : [{ name: n, advocates: [] }];
}

/** `A*, B` → [A, B] (the asterisk marks the author). */
function judges(raw: string): string[] {
  return [
    ...new Set(
      raw
        .split(',')
        .map((j) => stripJudgeTitle(j.replaceAll('*', '')))
        .filter((j) => j !== ''),
    ),
  ];
}

/** `CRIMINAL APPEAL No. 1031/2015` → `CRIMINAL APPEAL`. */
function caseTypeOf(caseNumber: string): string | null {
  const at = caseNumber.toLowerCase().indexOf(' no');
  return at > 0 ? caseNumber.slice(0, at).trim() : null;
}

export function mapScBulkRow(ref: string, row: Row, partition: Partition): MapResult {
  const oversized = oversizedField(
    row,
    SC_PARQUET_COLUMNS.filter((c) => c !== 'raw_html'),
  );
  if (oversized !== null) return rejected(ref, `unreadable row: ${oversized}`);
  const quirks: Quirk[] = [];
  const path = text(row, 'path');
  const id = idSegment(path);
  if (id === '') return rejected(ref, 'no path: nothing identifies the judgment');

  const html = typeof row.raw_html === 'string' ? row.raw_html : '';
  const card = html === '' ? null : readResultCard(html);
  if (html !== '' && card === null)
    quirks.push({ field: 'raw_html', issue: `not a result card (${html.length} characters); ignored`, value: null });
  const cnr = text(row, 'cnr').toUpperCase();
  let caseNumber = card?.details['case no'] ?? '';
  // `- 0` and the like: the SC prints no case number as zeros.
  const numbered = /[1-9]/.test(caseNumber);
  if (!numbered) {
    if (cnr === '') return rejected(ref, 'missing case number: the card has no "Case No" and the row no CNR');
    caseNumber = cnr;
    quirks.push({ field: 'caseNumber', issue: 'card gives no case number; CNR used', value: null });
  }

  const decided = dateValue(row.decision_date);
  if (decided.iso === null && decided.asGiven !== null) {
    quirks.push({ field: 'decisionDate', issue: 'not a calendar date', value: decided.asGiven });
  }
  if (decided.iso !== null && yearOf(decided.iso) !== partition.year) {
    quirks.push({ field: 'decisionDate', issue: `outside the dataset's year partition ${partition.year}`, value: decided.iso });
  }

  const title = text(row, 'title');
  const split = splitParties(title);
  const petitioners = side(text(row, 'petitioner') || split?.petitioner || '');
  const respondents = side(text(row, 'respondent') || split?.respondent || '');
  if (petitioners.length === 0 && respondents.length === 0)
    quirks.push({ field: 'parties', issue: 'source names no party', value: title || null });
  const neutral = text(row, 'case_id') || text(row, 'nc_display');
  const citations = [...new Set([text(row, 'citation'), neutral].filter((c) => c !== ''))];
  const author = stripJudgeTitle(text(row, 'author_judge').replaceAll('*', ''));

  return buildCaseRecord({
    caseId: `scb-${id}`,
    source: SC_BULK_SOURCE,
    sourceRef: ref,
    caseNumber,
    caseNumberYear: numbered ? trailingYear(caseNumber) : null,
    court: SUPREME_COURT,
    bench: null,
    caseType: numbered ? caseTypeOf(caseNumber) : null,
    title: titleFromParties(petitioners, respondents) ?? (title || null),
    parties: { petitioners, respondents },
    judges: judges(text(row, 'judge')),
    decisionDate: decided.iso,
    filingDate: null,
    citations,
    text: null,
    summary: null,
    // The row indexes a judgment PDF kept in the dataset's data/ layer under `path`.
    documentBearing: true,
    quirks,
    extra: {
      layer: 'parquet',
      path,
      cnr: cnr || null,
      neutralCitation: neutral || null,
      excerpt: text(row, 'description') || null,
      disposalNature: text(row, 'disposal_nature') || null,
      availableLanguages: text(row, 'available_languages') || null,
      authorJudge: author || null,
      scrapedAt: text(row, 'scraped_at') || null,
      datasetYear: partition.year,
    },
  });
}
