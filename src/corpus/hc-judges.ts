/**
 * Reads the KHOJ profiles of High Court judges (hc-judges-khoj/KHOJ_1.8.csv, a 2022
 * snapshot) for the judge lookup: name, the High Courts served (parent and transfers) and
 * the tenure (appointment to retirement). Read at run time from the corpus folder; a
 * missing file gives no profiles, not an error, so the lookup still serves the judges of
 * the case store.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { csvRecords } from '../reference/build.ts';

export const KHOJ_FILE = 'hc-judges-khoj/KHOJ_1.8.csv';

export interface HcJudgeProfile {
  /** As KHOJ spells it: title case, no honorific. */
  readonly name: string;
  /** KHOJ's High Court names ("Allahabad", "J & K and Ladakh"), parent first. */
  readonly highCourts: readonly string[];
  /** YYYY-MM-DD, or null when KHOJ has none. */
  readonly appointed: string | null;
  readonly retires: string | null;
}

const MISSING = /^(not available|not applicable|)$/i;

function day(value: string | undefined): string | null {
  const match = value === undefined ? null : /^(\d{4}-\d{2}-\d{2})T/.exec(value);
  return match?.[1] ?? null;
}

function present(value: string | undefined): string | null {
  const trimmed = value?.trim() ?? '';
  return MISSING.test(trimmed) ? null : trimmed;
}

export function mapKhojRows(text: string): HcJudgeProfile[] {
  return csvRecords(text).flatMap((row) => {
    const name = present(row['Name of the Judge'])?.replace(/\s+/g, ' ');
    if (!name) return [];
    const courts = [
      row['Parent High Court'],
      row['If yes, which High Court 1'],
      row['If yes, which High Court 2'],
      row['If yes, which High Court 3'],
    ]
      .map(present)
      .filter((c): c is string => c !== null);
    return [
      { name, highCourts: [...new Set(courts)], appointed: day(row['Date of Appointment']), retires: day(row['Date of Retirement']) },
    ];
  });
}

export async function readHcJudgeProfiles(corpusDir: string | undefined): Promise<HcJudgeProfile[]> {
  if (corpusDir === undefined) return [];
  const text = await readFile(join(corpusDir, KHOJ_FILE), 'utf8').catch(() => null);
  return text === null ? [] : mapKhojRows(text);
}
