/**
 * Splits a judgment into the paragraphs every analysis refers to (numbered from 1 in the
 * order returned). Judgment texts arrive in three layouts and the split follows each:
 * paragraphs separated by blank lines; a printed page hard-wrapped at a fixed width (the
 * Indian Kanoon rendering), where a paragraph ends at a short line closing a sentence,
 * before an indented or numbered line, and around a label alone on its line
 * ("judgment:"); and one sentence a line (the IN-Abs law-report texts), where each line is
 * a paragraph unless the source broke it after an abbreviation ("sec.\n19 (2)"). Indian
 * Kanoon page footers (title line, site address, page number) and lines holding only a
 * report page number are removed first, so a sentence broken across a printed page reads
 * whole. Pure.
 */

const TERMINAL = /[.?!:;]["')\]]*$/;
/** The source broke the line after one of these, so the sentence goes on. */
const ABBREVIATION_END =
  /(?:^|[\s(])(?:sec|secs|s|ss|no|nos|art|arts|cl|sub|rs|mr|mrs|ms|dr|vs|v|viz|ltd|co|govt|hon'ble|misc|crl|cri|civ|supp|sri|smt|shri|p|pp|para|paras)\.$/i;
const NUMBERED = /^\s*(?:\d{1,3}\.|\(\d{1,3}\)|\d{1,3}\))\s+\S/;
/** A label on a line of its own ("judgment:", "headnote:", "JUDGMENT"): a paragraph by itself. */
const LABEL = /^\s*(?:[A-Za-z][A-Za-z ]{0,24}:|J\s?U\s?D\s?G\s?M\s?E\s?N\s?T|O\s?R\s?D\s?E\s?R)\s*$/;

/** Removes Indian Kanoon page footers and bare report page numbers. */
function clean(text: string): string {
  let normalised = text.replace(/\r\n?/g, '\n').replace(/\u00a0/g, ' ');
  const title = /indiankanoon\.org\/doc\//i.test(normalised) ? normalised.split('\n', 2)[1]?.trim() : undefined;
  if (title) {
    let page = 0;
    const escaped = title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    normalised = normalised.replace(
      new RegExp(`${escaped}\\s*\\nindian kanoon - https?://indiankanoon\\.org/doc/\\d+/ ?(\\d+)`, 'gi'),
      (whole: string, digits: string) => {
        page += 1;
        const expected = String(page);
        // The page number is glued to the next page's first word: strip only the expected digits.
        return digits.startsWith(expected) ? `\n${digits.slice(expected.length)}` : whole;
      },
    );
  }
  return normalised
    .split('\n')
    .filter((line) => !/^\s*\d{1,4}\s*$/.test(line))
    .join('\n');
}

function isHardWrapped(lines: readonly string[]): boolean {
  const filled = lines.filter((l) => l.trim().length > 0);
  if (filled.length < 4) return false;
  const open = filled.filter((l) => !TERMINAL.test(l.trim())).length;
  return open / filled.length > 0.4;
}

function squeeze(lines: readonly string[]): string {
  return lines
    .map((l) => l.trim())
    .join(' ')
    .replace(/(\w)- (\w)/g, '$1-$2')
    .replace(/\s+/g, ' ')
    .trim();
}

function wrappedParagraphs(lines: readonly string[]): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  const close = (): void => {
    if (current.length > 0) out.push(current);
    current = [];
  };
  lines.forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === '') return close();
    const previous = lines[i - 1] ?? '';
    const indented = /^\s{2,}\S/.test(line) && !/^\s{2,}\S/.test(previous);
    if (LABEL.test(line)) {
      close();
      current.push(line);
      return close();
    }
    if (current.length > 0 && (indented || NUMBERED.test(line))) close();
    current.push(line);
    const neighbour = Math.max((lines[i - 1] ?? '').trim().length, (lines[i + 1] ?? '').trim().length);
    if (TERMINAL.test(trimmed) && trimmed.length < 0.8 * neighbour) close();
  });
  close();
  return out;
}

function lineParagraphs(lines: readonly string[]): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  lines.forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === '') {
      if (current.length > 0) out.push(current);
      current = [];
      return;
    }
    current.push(line);
    const next = (lines[i + 1] ?? '').trim();
    const continues =
      next !== '' && (ABBREVIATION_END.test(trimmed) || /^[a-z]/.test(next) || (/\b[A-Za-z]\.$/.test(trimmed) && /^\d/.test(next)));
    if (!continues) {
      out.push(current);
      current = [];
    }
  });
  if (current.length > 0) out.push(current);
  return out;
}

/** The judgment's paragraphs, in order; paragraph n of the analysis is element n-1. */
export function paragraphsOf(text: string): string[] {
  const lines = clean(text).split('\n');
  const groups = isHardWrapped(lines) ? wrappedParagraphs(lines) : lineParagraphs(lines);
  return groups.map(squeeze).filter((p) => p !== '');
}

/** Prose rather than debris (counsel lists, page furniture, tables): enough words, mostly words. */
export function isProse(paragraph: string): boolean {
  const tokens = paragraph.split(/\s+/).filter((t) => t !== '');
  // Closing punctuation starts at the first character the word cannot take, so a run of quotes is read one way.
  const words = tokens.filter((t) => /^[("'[]?[A-Za-z][A-Za-z'’-]*(?:[.,;:)"\]][.,;:)"'\]]*)?$/.test(t));
  return words.length >= 8 && words.length / tokens.length >= 0.6;
}

/** A text can be analysed when it holds at least one paragraph of real prose. */
export function isAnalysable(text: string): boolean {
  return paragraphsOf(text).some(isProse);
}
