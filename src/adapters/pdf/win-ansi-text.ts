/**
 * Fits text to what the PDF standard fonts can draw: they encode WinAnsi only, and one
 * character outside it (a Devanagari name, a rupee sign) would make pdf-lib throw. Each
 * character is kept, spelled with near equivalents (typographic dashes, primes, the rupee
 * as "Rs."), stripped of its accents, or replaced with "?", and every change is counted so
 * a rendering can say how faithful it is.
 */

const SPELLED: Readonly<Record<string, string>> = {
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2015': '-',
  '\u2212': '-',
  '\u2032': "'",
  '\u2033': '"',
  '\u2044': '/',
  '\u2116': 'No.',
  '\u20B9': 'Rs.',
  '\u2192': '->',
  '\u2190': '<-',
  '\u2264': '<=',
  '\u2265': '>=',
  '\u2260': '!=',
};

export interface FittedText {
  readonly text: string;
  /** Characters that could not be drawn as they are (dropped, spelled or replaced). */
  readonly replaced: number;
}

export class WinAnsiFitter {
  private readonly drawable: ReadonlySet<number>;
  private readonly memo = new Map<string, string>();

  /** `characterSet` is the font's own list (pdf-lib `PDFFont.getCharacterSet()`). */
  constructor(characterSet: readonly number[]) {
    this.drawable = new Set(characterSet);
  }

  private canDraw(text: string): boolean {
    for (const ch of text) if (!this.drawable.has(ch.codePointAt(0)!)) return false;
    return true;
  }

  private substitute(ch: string): string {
    if (/^\s$/u.test(ch)) return ' ';
    if (/^[\p{Cc}\p{Cf}]$/u.test(ch)) return '';
    const spelled = SPELLED[ch];
    if (spelled !== undefined) return spelled;
    const compatible = ch.normalize('NFKC');
    if (compatible !== ch && this.canDraw(compatible)) return compatible;
    const bare = ch.normalize('NFKD').replace(/\p{M}/gu, '');
    if (bare !== '' && this.canDraw(bare)) return bare;
    return '?';
  }

  /** One line of text (no line breaks), drawable with the font. */
  fit(line: string): FittedText {
    let text = '';
    let replaced = 0;
    for (const ch of line) {
      if (this.drawable.has(ch.codePointAt(0)!)) {
        text += ch;
        continue;
      }
      let substitute = this.memo.get(ch);
      if (substitute === undefined) {
        substitute = this.substitute(ch);
        this.memo.set(ch, substitute);
      }
      text += substitute;
      replaced += 1;
    }
    return { text, replaced };
  }
}
