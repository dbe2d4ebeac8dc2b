/**
 * Fifty Supreme Court judgments in the Indian Kanoon rendering (Saloni-sharma29/JNU):
 * full text with a header block (title line, equivalent citations, author, bench,
 * petitioner, respondent, date of judgment) and a summary. The source lower-cases all
 * text; it is kept that way. The case number is read from the "... jurisdiction: civil
 * appeal no. N of YEAR" line; the Indian Kanoon document id printed in the page footer
 * gives the case id, so the same judgment filed twice (docs 28 and 40) is caught.
 */
import { supremeCourtCaseType } from '../../domain/case/case-type.ts';
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
import { parseDayFirst, parseMonthName } from '../../domain/case/dates.ts';
import { cleanName, splitScBench } from '../source-text.ts';
import { findJurisdictionCaseLine } from './judgment-text.ts';
import { describeIssues, readJsonl, type CorpusSource } from './source.ts';

export const SC_IK50_SOURCE = 'sc-judgments-text-ik50';
const FILE = 'ik50_judgments.jsonl';
/** The header (title to headnote) sits well inside this many characters. */
const HEADER_CHARS = 4000;

const Ik50Row = z.object({ doc_no: z.string(), judgment: z.string(), summary: z.string().nullable().optional() });

export function indianKanoonDocId(text: string): string | null {
  return /indiankanoon\.org\/doc\/(\d+)/.exec(text)?.[1] ?? null;
}

function block(header: string, start: RegExp, end: RegExp): string | null {
  const s = start.exec(header);
  if (!s) return null;
  const rest = header.slice(s.index + s[0].length);
  const e = end.exec(rest);
  return e ? rest.slice(0, e.index) : null;
}

/**
 * The full bench is the last "bench:" list before "citation:"/"act:", one judge a line.
 * Some headers leave that list empty; the one-line "bench: a, b., c, d." at the top is
 * then split the way the SC metadata bench is.
 */
function benchList(header: string): string[] {
  const lists = [...header.matchAll(/(?<=\n)bench:\n((?:[^\n:]+\n)+?)(?=[a-z ]+:)/g)];
  const lines = (lists.at(-1)?.[1] ?? '')
    .split('\n')
    .map((l) => cleanName(l).replace(/(?<!\s)\s*\(j\)$/i, ''))
    .filter((l) => l !== '');
  if (lines.length > 0) return lines;
  return splitScBench(/\nbench:[ \t]*([^\n]+)/.exec(header)?.[1]) ?? [];
}

export function mapIk50Row(ref: string, json: unknown): MapResult {
  const parsed = Ik50Row.safeParse(json);
  if (!parsed.success) return rejected(ref, `unparseable row: ${describeIssues(parsed.error.issues)}`);
  const { doc_no: docNo, judgment: text, summary } = parsed.data;
  const header = text.slice(0, HEADER_CHARS);
  const quirks: Quirk[] = [];

  const found = findJurisdictionCaseLine(text);
  if (!found) return rejected(ref, 'missing case number: no "... jurisdiction: <type> no. N of YEAR" line in the judgment');
  if (found.year === null) {
    quirks.push({ field: 'caseNumber', issue: 'year missing from the case line in the source', value: found.text });
  }

  const dated = /date of judgment:?\s*(\d{1,2}\/\d{1,2}\/\d{4})/.exec(header)?.[1] ?? null;
  const decisionDate = parseDayFirst(dated);
  if (dated !== null && decisionDate === null) quirks.push({ field: 'decisionDate', issue: 'not a calendar date', value: dated });
  const titleLine = header.split('\n')[1] ?? '';
  const titleDate = parseMonthName(/ on (\d{1,2} [a-z]+, \d{4})\s*$/.exec(titleLine)?.[1]);
  if (titleDate !== null && decisionDate !== null && titleDate !== decisionDate) {
    quirks.push({
      field: 'decisionDate',
      issue: `title line names another date (${titleDate}): "${titleLine.trim()}"`,
      value: decisionDate,
    });
  }

  // The end marks start at the first line break of a blank run (the lookbehinds), so a run is not rescanned from each break.
  const pet = cleanName(block(header, /\bpetitioner:\s*\n/, /\n(?<!\n\s*?\n)\s*vs\.?\s*\n/));
  const res = cleanName(block(header, /\brespondent:\s*\n/, /\n(?<!\n\s*?\n)\s*date of judgment/));
  const petitioners: Party[] = pet ? [{ name: pet, advocates: [] }] : [];
  const respondents: Party[] = res ? [{ name: res, advocates: [] }] : [];
  const citations = (/equivalent citations:\s*([^\n]+)/.exec(header)?.[1] ?? '')
    .split(',')
    .map((c) => c.replace(/\s+/g, ' ').trim())
    .filter((c) => c !== '');
  const citationLine = /equivalent citations:\s*([^\n]+)/.exec(header)?.[1] ?? null;
  if (citations.some((c) => !/\d\)?$/.test(c))) {
    quirks.push({ field: 'citations', issue: 'equivalent-citations line malformed in source', value: citationLine });
  }
  const ikDoc = indianKanoonDocId(text);

  return buildCaseRecord({
    caseId: ikDoc ? `sc-ik-${ikDoc}` : `sc-ik50-${docNo}`,
    source: SC_IK50_SOURCE,
    sourceRef: ref,
    caseNumber: found.text,
    caseNumberYear: found.year,
    court: SUPREME_COURT,
    bench: null,
    caseType: supremeCourtCaseType(found.type),
    title: titleFromParties(petitioners, respondents),
    parties: { petitioners, respondents },
    judges: benchList(header),
    decisionDate,
    filingDate: null,
    citations,
    text,
    summary: summary ?? null,
    documentBearing: true,
    quirks,
    extra: {
      docNo,
      indianKanoonDocId: ikDoc,
      author: cleanName(/\nauthor:\s*([^\n]+)/.exec(header)?.[1]) || null,
      titleLine: titleLine.trim(),
      lowerCasedBySource: true,
    },
  });
}

export const scIk50Source: CorpusSource = {
  name: SC_IK50_SOURCE,
  folder: 'sc-judgments-text-ik50',
  rowFiles: [FILE],
  async *read({ folderPath }) {
    const firstRefById = new Map<string, string>();
    for await (const line of readJsonl(`${folderPath}/${FILE}`, FILE)) {
      if ('error' in line.value) {
        yield rejected(line.ref, `unparseable JSON: ${line.value.error}`);
        continue;
      }
      const result = mapIk50Row(line.ref, line.value.json);
      if ('ok' in result) {
        const first = firstRefById.get(result.ok.caseId);
        if (first !== undefined) {
          yield rejected(line.ref, `duplicate judgment: same Indian Kanoon document as ${first} (${result.ok.caseId})`);
          continue;
        }
        firstRefById.set(result.ok.caseId, line.ref);
      }
      yield result;
    }
  },
};
