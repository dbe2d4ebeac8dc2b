/**
 * Text clean-up shared by the source mappers: HTML entity decoding, whitespace and
 * stray-punctuation trimming of names, advocate lists, and the judge-name styles of the
 * Supreme Court metadata. Pure; `he` is a table-driven decoder with no IO.
 */
import he from 'he';

/**
 * Decodes only entities closed by `;` (`&AMP;`, `&#39;`). The SC metadata also holds
 * bare `&ORS`, `&ANR`, `&K` (ampersand then text); a lenient decoder could read some of
 * those as legacy entities, so they are left alone.
 */
export function decodeEntities(s: string): string {
  return s.replace(/&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/gi, (m) => he.decode(m));
}

/** Collapses whitespace (tabs included) and drops the stray ` .` / `..` endings. */
export function cleanName(raw: string | null | undefined): string {
  return (
    decodeEntities(raw ?? '')
      .replace(/\s+/g, ' ')
      .trim()
      // Each trailing run is tried from its first character only (the lookbehinds), so no run is rescanned.
      .replace(/(?<!\s|\s\.)(?:\s+\.)+$/, '')
      .replace(/(?<!\.)\.{2,}$/, '.')
      .trim()
  );
}

/** eCourts advocate strings: comma-separated, repeated names, `Advocate-` prefixes. */
export function splitAdvocates(raw: string | null | undefined): string[] {
  const seen = new Set<string>();
  for (const part of cleanName(raw).split(',')) {
    const name = part.replace(/^advocate\s*-\s*/i, '').trim();
    if (name !== '') seen.add(name);
  }
  return [...seen];
}

const HONORIFIC = /^(?:HON'?BLE|HONOURABLE)\s+(?:(?:MR|MRS|MS|DR)\.?\s+)?(?:JUSTICE\s+)?/i;

/** Removes "HON'BLE MR. JUSTICE" style prefixes and a trailing " (J)". */
export function stripJudgeTitle(raw: string): string {
  return cleanName(raw)
    .replace(HONORIFIC, '')
    .replace(/(?<!\s)\s*\(J\)$/i, '')
    .trim();
}

/**
 * Splits an SC `bench` string. 2017+ uses "HON'BLE MR. JUSTICE X, HON'BLE ...";
 * 1990-2016 mostly "A.K. SIKRI,ROHINTON FALI NARIMAN" (2010 adds ", , , "); older
 * records "SIKRI, S.M.,SHELAT, J.M." where a one-word surname is followed by its given
 * names. A lone one-word token followed by another token is taken as such a pair.
 * Returns null when the split is ambiguous (a trailing lone surname).
 */
export function splitScBench(raw: string | null | undefined): string[] | null {
  const s = decodeEntities(raw ?? '').trim();
  if (s === '') return [];
  if (/JUSTICE/i.test(s)) {
    return s
      .split(',')
      .map(stripJudgeTitle)
      .filter((n) => n !== '');
  }
  const tokens = s
    .split(',')
    .map((t) => t.replace(/\s+/g, ' ').trim())
    .filter((t) => t !== '');
  const judges: string[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i] ?? '';
    const next = tokens[i + 1];
    if (/^[A-Z'-]+$/i.test(token)) {
      if (next === undefined) return null;
      judges.push(stripJudgeTitle(`${token}, ${next}`));
      i += 1;
    } else {
      judges.push(stripJudgeTitle(token));
    }
  }
  return judges;
}
