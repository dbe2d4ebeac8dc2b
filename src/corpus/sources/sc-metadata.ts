/**
 * Supreme Court judgment metadata (vanga/indian-supreme-court-judgments, SC app API):
 * 32,769 rows, one per judgment, with the PDF path on the SC site but no text. The case
 * id is the diary number plus the judgment date (the pair is unique; the diary number
 * alone repeats when one matter has several judgments). 12,254 rows print no case
 * number (` - 0` / ` - `); the SC registry identifies such matters by diary number, so
 * that is used as the case number and flagged. Rows with neither are rejected.
 */
import { z } from 'zod';
import {
  buildCaseRecord,
  rejected,
  SUPREME_COURT,
  titleFromParties,
  type MapResult,
  type Party,
  type Quirk,
} from '../../domain/case/case-record.ts';
import { parseScApiCaseNumber } from '../../domain/case/case-number.ts';
import { parseDayFirst } from '../../domain/case/dates.ts';
import { cleanName, decodeEntities, splitScBench, stripJudgeTitle } from '../source-text.ts';
import { describeIssues, readJsonl, type CorpusSource } from './source.ts';

export const SC_METADATA_SOURCE = 'sc-judgments-metadata';
const FILE = 'sc_judgments_metadata.jsonl';

const nullableString = z.string().nullable().optional();
const ScRow = z.object({
  diary_no: z.string(),
  Judgement_type: nullableString,
  case_no: z.string(),
  pet: nullableString,
  res: nullableString,
  pet_adv: nullableString,
  res_adv: nullableString,
  bench: nullableString,
  judgement_by: nullableString,
  judgment_dates: z.string(),
  temp_link: nullableString,
});
type ScRow = z.infer<typeof ScRow>;

/** `41376-2024` → {number, year}; null for `-0`, `-1178`, `68-688` (no usable diary). */
function parseDiary(raw: string): { number: string; year: number } | null {
  const m = /^(\d+)-(\d{4})$/.exec(raw.trim());
  if (!m || !m[1] || !m[2] || Number(m[1]) === 0) return null;
  return { number: m[1].replace(/^0+(?=\d)/, ''), year: Number(m[2]) };
}

function party(name: string | null | undefined, advocate: string | null | undefined): Party[] {
  const n = cleanName(name);
  if (n === '') return [];
  const a = cleanName(advocate);
  return [{ name: n, advocates: a === '' ? [] : [a] }];
}

/**
 * `path (Language)`: the language is what follows the first '(' after the last inner ')', up
 * to the closing one. Read by hand, as `/^(.*?)\s*\(([^)]+)\)$/` would (a path holds no line
 * break), because that pattern rescans from every '(' of a long run.
 */
function pathAndLanguage(s: string): { path: string; language: string | null } {
  const body = s.slice(0, -1);
  const open = s.endsWith(')') ? body.indexOf('(', body.lastIndexOf(')') + 1) : -1;
  const path = open < 0 ? s : body.slice(0, open).trimEnd();
  if (open < 0 || open === body.length - 1 || /[\n\r\u2028\u2029]/.test(path)) return { path: s, language: null };
  return { path, language: body.slice(open + 1) };
}

/** `jonew/judis/42386.pdf (English) | judis/1.pdf (English)` → paths with language. */
function pdfLinks(raw: string | null | undefined): { path: string; language: string | null }[] {
  return (raw ?? '')
    .split('|')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map(pathAndLanguage);
}

export function mapScMetadataRow(ref: string, json: unknown): MapResult {
  const parsed = ScRow.safeParse(json);
  if (!parsed.success) return rejected(ref, `unparseable row: ${describeIssues(parsed.error.issues)}`);
  const row: ScRow = parsed.data;
  const quirks: Quirk[] = [];

  const decisionDate = parseDayFirst(row.judgment_dates);
  if (decisionDate === null) return rejected(ref, `judgment date "${row.judgment_dates}" is not a DD-MM-YYYY calendar date`);

  const diary = parseDiary(row.diary_no);
  const parts = parseScApiCaseNumber(row.case_no);
  let caseNumber: string;
  if (parts) {
    caseNumber = row.case_no.trim();
  } else if (diary) {
    caseNumber = `Diary No. ${diary.number}/${diary.year}`;
    quirks.push({ field: 'caseNumber', issue: 'source gives no case number; SC diary number used', value: row.case_no });
  } else {
    return rejected(ref, `missing case number ("${row.case_no}") and no usable diary number ("${row.diary_no}")`);
  }

  const judges = splitScBench(row.bench);
  if (judges === null) quirks.push({ field: 'judges', issue: 'bench string could not be split into judges', value: row.bench ?? null });
  const petitioners = party(row.pet, row.pet_adv);
  const respondents = party(row.res, row.res_adv);
  if (petitioners.length === 0 && respondents.length === 0) {
    quirks.push({ field: 'parties', issue: 'source names no party', value: null });
  }
  const author = cleanName(row.judgement_by);
  const pdfs = pdfLinks(row.temp_link);

  const [day, month, year] = row.judgment_dates.split('-');
  const diarySlug = row.diary_no.replace(/[^0-9A-Za-z]+/g, '-').replace(/^-+|(?<!-)-+$/g, '') || 'nodiary';
  return buildCaseRecord({
    caseId: `sc-${diarySlug}-${year}${month}${day}`,
    source: SC_METADATA_SOURCE,
    sourceRef: ref,
    caseNumber,
    caseNumberYear: parts?.year ?? null,
    court: SUPREME_COURT,
    bench: null,
    caseType: parts?.type ?? null,
    title: titleFromParties(petitioners, respondents),
    parties: { petitioners, respondents },
    judges: judges ?? [decodeEntities(row.bench ?? '').trim()],
    decisionDate,
    filingDate: null,
    citations: [],
    text: null,
    summary: null,
    // The row is a judgment index entry: the judgment PDF is on file at the court (path kept in extra).
    documentBearing: pdfs.length > 0,
    quirks,
    extra: {
      diaryNo: row.diary_no,
      judgmentType: row.Judgement_type ?? null,
      caseNoAsGiven: row.case_no,
      judgmentDateAsGiven: row.judgment_dates,
      authorJudge: author === '' ? null : stripJudgeTitle(author),
      pdfLinks: pdfs,
    },
  });
}

export const scMetadataSource: CorpusSource = {
  name: SC_METADATA_SOURCE,
  folder: 'sc-judgments-metadata',
  rowFiles: [FILE],
  async *read({ folderPath }) {
    for await (const line of readJsonl(`${folderPath}/${FILE}`, FILE)) {
      yield 'error' in line.value
        ? rejected(line.ref, `unparseable JSON: ${line.value.error}`)
        : mapScMetadataRow(line.ref, line.value.json);
    }
  },
};
