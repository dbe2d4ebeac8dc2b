/**
 * Builds, at test time in a temp folder, a small corpus in the public bulk datasets'
 * layout (src/corpus/bulk/layout.ts) from the datasets in ../shared/data; nothing is
 * copied into the repository.
 *
 * - Supreme Court: every 100th row of sc-judgments-metadata (real SC metadata in the SC
 *   app API's shape), recast into the bulk parquet columns and partitioned by judgment
 *   year. The bulk dataset's own columns that row lacks (neutral citation, CNR) are empty.
 * - High Courts: SYNTHETIC recombinations. The eCourts case-status fixtures (real CNRs,
 *   case numbers and parties) are placed in a court's partition by the CNR's High Court and
 *   on that court's first bench in hc-courts-reference/bench-codes.json, with a result card
 *   and a PDF name in the portal's shape. They are not judgments the portal published.
 *   Partitions alternate between the parquet and the JSON layer, and one holds both.
 *
 * `expected` lists what was written so tests can check the store against it.
 */
import { createReadStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parquetWriteFile } from 'hyparquet-writer';
import type { ColumnSource } from 'hyparquet-writer';
import { HC_BUCKET, SC_BUCKET } from '../../src/corpus/bulk/bulk-ingest.ts';

export const SYNTHETIC_NOTE =
  'High Court records here are synthetic: eCourts case-status fixtures recombined with hc-courts-reference codes. ' +
  'Supreme Court rows are real sc-judgments-metadata rows recast into the bulk columns.';

/** CNR prefix → court code (`STATE_COURT`) of the High Courts the fixtures hold. */
const CNR_COURT: Readonly<Record<string, string>> = { GAHC: '18_6', JKHC: '1_12', KAHC: '29_3' };

export interface BuiltScRow {
  rel: string;
  row: number;
  diaryNo: string;
  caseNo: string;
  pdfPath: string;
  judgmentDate: string;
  pet: string;
  res: string;
}

export interface BuiltHcRow {
  rel: string;
  layer: 'parquet' | 'json';
  cnr: string;
  caseNumber: string;
  court: string;
  bench: string;
}

export interface BulkCorpus {
  root: string;
  referenceDir: string;
  sc: BuiltScRow[];
  hc: BuiltHcRow[];
  /** A partition holding both layers (only its parquet must be read). */
  bothLayers: string;
}

function escapeHtml(s: string): string {
  return s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

async function* jsonl(path: string): AsyncGenerator<Record<string, unknown>> {
  for await (const line of createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })) {
    if (line.trim() !== '') yield JSON.parse(line) as Record<string, unknown>;
  }
}

function s(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strings(name: string, data: string[]): ColumnSource {
  return { name, data, type: 'STRING', nullable: true };
}

function writeParquet(path: string, columns: ColumnSource[]): void {
  mkdirSync(join(path, '..'), { recursive: true });
  parquetWriteFile({ filename: path, columnData: columns, kvMetadata: [{ key: 'synthetic', value: SYNTHETIC_NOTE }] });
}

async function buildSc(corpusDir: string, root: string): Promise<BuiltScRow[]> {
  const byYear = new Map<string, Record<string, string>[]>();
  let n = 0;
  for await (const r of jsonl(join(corpusDir, 'sc-judgments-metadata', 'sc_judgments_metadata.jsonl'))) {
    n += 1;
    if (n % 100 !== 1) continue;
    const date = s(r.judgment_dates);
    const year = date.slice(-4);
    if (!/^\d{4}$/.test(year)) continue;
    const link = s(r.temp_link).split('|')[0] ?? '';
    const pdfPath = link.replace(/\s*\([^)]*\)\s*$/, '').trim();
    const title = `${s(r.pet)} versus ${s(r.res)}`;
    const card =
      `<button id='link_${n}'><strong>${escapeHtml(title)}</strong></button><br>` +
      `<strong>Coram : ${escapeHtml(s(r.bench))}</strong><br>` +
      `<strong class='caseDetailsTD'><span> Decision Date :</span><font> ${escapeHtml(date)}</font>` +
      `<span> | Case No :</span><font> ${escapeHtml(s(r.case_no))}</font></strong>`;
    const rows = byYear.get(year) ?? [];
    rows.push({
      title,
      petitioner: s(r.pet),
      respondent: s(r.res),
      description: '',
      judge: s(r.bench),
      author_judge: s(r.judgement_by),
      citation: '',
      case_id: '',
      cnr: '',
      decision_date: date,
      disposal_nature: '',
      court: 'Supreme Court of India',
      available_languages: 'ENG',
      raw_html: card,
      path: pdfPath,
      nc_display: '',
      scraped_at: '',
      year,
      diary_no: s(r.diary_no),
      case_no: s(r.case_no),
    });
    byYear.set(year, rows);
  }
  const built: BuiltScRow[] = [];
  for (const [year, rows] of [...byYear].sort()) {
    const rel = `metadata/parquet/year=${year}/metadata.parquet`;
    const columns = Object.keys(rows[0] ?? {}).filter((c) => c !== 'diary_no' && c !== 'case_no');
    writeParquet(
      join(root, SC_BUCKET, rel),
      columns.map((c) =>
        strings(
          c,
          rows.map((r) => r[c] ?? ''),
        ),
      ),
    );
    rows.forEach((r, i) =>
      built.push({
        rel,
        row: i + 1,
        diaryNo: r.diary_no ?? '',
        caseNo: r.case_no ?? '',
        pdfPath: r.path ?? '',
        judgmentDate: r.decision_date ?? '',
        pet: r.petitioner ?? '',
        res: r.respondent ?? '',
      }),
    );
  }
  return built;
}

interface HcRecord {
  cnr: string;
  court: string;
  bench: string;
  year: string;
  caseNumber: string;
  fields: Record<string, string>;
  /** decision_date as days since 1970 for the parquet DATE column, null when undecided. */
  decisionDays: number | null;
}

function dayFirst(iso: string): string {
  const [y, m, d] = iso.split('-');
  return iso === '' ? '' : `${d}-${m}-${y}`;
}

function hcRecord(r: Record<string, unknown>, courtNames: Record<string, string>, benchOf: Map<string, string>): HcRecord | null {
  const cnr = s(r.cnr_number).toUpperCase();
  const court = CNR_COURT[cnr.slice(0, 4)];
  const bench = court === undefined ? undefined : benchOf.get(court);
  if (court === undefined || bench === undefined) return null;
  const registration = s(r.registration_number);
  const caseNumber = `${s(r.case_type)}/${registration}`;
  const decided = s(r.decision_date);
  const year = decided.slice(0, 4) || registration.slice(-4) || cnr.slice(-4);
  const party = (list: unknown) => (Array.isArray(list) ? list.map((p: { name?: unknown }) => s(p.name)).join(', ') : '');
  const title = `${caseNumber} of ${party(r.petitioners)} Vs ${party(r.respondents)}`;
  const judge = s(r.coram).replace(/^\d+/, '');
  const courtName = courtNames[court.replace('_', '~')] ?? '';
  const pdfLink = `court/cnrorders/${bench}/orders/${year}/${cnr}_1_${decided || 'undated'}.pdf`;
  return {
    cnr,
    court,
    bench,
    year,
    caseNumber,
    decisionDays: decided === '' ? null : Date.parse(`${decided}T00:00:00Z`) / 86_400_000,
    fields: {
      court_code: court.replace('_', '~'),
      title,
      description: s(r.category),
      judge,
      pdf_link: pdfLink,
      cnr,
      date_of_registration: dayFirst(s(r.registration_date)),
      decision_date: dayFirst(decided),
      disposal_nature: s(r.nature_of_disposal),
      court_name: courtName,
    },
  };
}

function card(f: Record<string, string>): string {
  const pair = (label: string, value: string | undefined) =>
    value ? `<span style="color:#212F3D"> | ${label} :</span>\n<font color="green"> ${escapeHtml(value)}</font>` : '';
  return (
    `<button type="button" role="link" class="btn btn-link"><font size="3">${escapeHtml(f.title ?? '')}</font></button>` +
    `${escapeHtml(f.description ?? '')}<br><strong>Judge : ${escapeHtml(f.judge ?? '')}</strong><br>` +
    `<strong class="caseDetailsTD"><span style="color:#212F3D"> CNR :</span>\n<font color="green"> ${escapeHtml(f.cnr ?? '')}</font>` +
    pair('Date of registration', f.date_of_registration) +
    pair('Decision Date', f.decision_date) +
    pair('Disposal Nature', f.disposal_nature) +
    `<br/><span style="opacity: 0.5;">Court : ${escapeHtml(f.court_name ?? '')}</span></strong>`
  );
}

function writeHcParquet(path: string, records: HcRecord[]): void {
  const names = ['court_code', 'title', 'description', 'judge', 'pdf_link', 'cnr', 'date_of_registration', 'disposal_nature', 'court_name'];
  mkdirSync(join(path, '..'), { recursive: true });
  parquetWriteFile({
    filename: path,
    kvMetadata: [{ key: 'synthetic', value: SYNTHETIC_NOTE }],
    columnData: [
      ...names.map((name) => ({ name, data: records.map((r) => r.fields[name] ?? '') })),
      // The dataset writes decision_date as a parquet DATE (process_metadata.py: date32).
      { name: 'decision_date', data: records.map((r) => r.decisionDays) },
    ],
    schema: [
      { name: 'root', num_children: names.length + 1 },
      ...names.map((name) => ({
        name,
        type: 'BYTE_ARRAY' as const,
        converted_type: 'UTF8' as const,
        repetition_type: 'OPTIONAL' as const,
      })),
      { name: 'decision_date', type: 'INT32' as const, converted_type: 'DATE' as const, repetition_type: 'OPTIONAL' as const },
    ],
  });
}

async function buildHc(corpusDir: string, root: string): Promise<{ built: BuiltHcRow[]; bothLayers: string }> {
  const reference = join(corpusDir, 'hc-courts-reference');
  const courtNames = JSON.parse(readFileSync(join(reference, 'court-codes.json'), 'utf8')) as Record<string, string>;
  const benchOf = new Map<string, string>();
  for (const [bench, court] of Object.entries(
    JSON.parse(readFileSync(join(reference, 'bench-codes.json'), 'utf8')) as Record<string, string>,
  )) {
    if (!benchOf.has(court)) benchOf.set(court, bench);
  }
  const partitions = new Map<string, HcRecord[]>();
  for (const file of ['case_details.jsonl', 'cases.jsonl']) {
    for await (const r of jsonl(join(corpusDir, 'ecourts-hc-case-status-fixtures', file))) {
      const record = hcRecord(r, courtNames, benchOf);
      if (record === null) continue;
      const key = `year=${record.year}/court=${record.court}/bench=${record.bench}`;
      partitions.set(key, [...(partitions.get(key) ?? []), record]);
    }
  }
  const built: BuiltHcRow[] = [];
  const keys = [...partitions.keys()].sort();
  const bothLayers = keys[0] ?? '';
  keys.forEach((key, i) => {
    const records = partitions.get(key) ?? [];
    const hcRoot = join(root, HC_BUCKET);
    const asJson = () => {
      const names = new Set<string>();
      for (const r of records) {
        let name = `${(r.fields.pdf_link ?? '')
          .split('/')
          .pop()
          ?.replace(/\.pdf$/, '')}.json`;
        while (names.has(name)) name = `${name.slice(0, -5)}_dup.json`;
        names.add(name);
        const dir = join(hcRoot, 'metadata/json', key);
        mkdirSync(dir, { recursive: true });
        writeFileSync(
          join(dir, name),
          JSON.stringify({ court_code: r.fields.court_code, pdf_link: r.fields.pdf_link, raw_html: card(r.fields) }),
        );
        if (key !== bothLayers)
          built.push({
            rel: `metadata/json/${key}/${name}`,
            layer: 'json',
            cnr: r.cnr,
            caseNumber: r.caseNumber,
            court: r.court,
            bench: r.bench,
          });
      }
    };
    if (i % 2 === 0) {
      const rel = `metadata/parquet/${key}/metadata.parquet`;
      writeHcParquet(join(hcRoot, rel), records);
      records.forEach((r, row) =>
        built.push({ rel: `${rel}#R${row + 1}`, layer: 'parquet', cnr: r.cnr, caseNumber: r.caseNumber, court: r.court, bench: r.bench }),
      );
      if (key === bothLayers) asJson();
    } else {
      asJson();
    }
  });
  return { built, bothLayers };
}

export async function buildBulkCorpus(corpusDir: string, root: string): Promise<BulkCorpus> {
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'SYNTHETIC.md'), `${SYNTHETIC_NOTE}\n`);
  const sc = await buildSc(corpusDir, root);
  const { built, bothLayers } = await buildHc(corpusDir, root);
  return { root, referenceDir: join(corpusDir, 'hc-courts-reference'), sc, hc: built, bothLayers };
}
