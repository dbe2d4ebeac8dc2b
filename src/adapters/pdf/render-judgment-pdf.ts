/**
 * Renders a judgment's published text as an A4 PDF: a header naming the court, case
 * number, parties, decision date and bench, a line saying the service rendered it from the
 * published text (it is not the court's own copy), then the text wrapped and paginated with
 * page numbers. Standard fonts only, so no font files ship with the service; characters
 * they cannot draw are fitted (see win-ansi-text.ts) and counted. The output depends on
 * the input alone: dates in the metadata come from the record, never the clock.
 */
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import { WinAnsiFitter } from './win-ansi-text.ts';

export interface JudgmentForPdf {
  readonly caseId: string;
  readonly caseNumber: string;
  readonly courtName: string;
  /** "A v. B", or null when the source names no parties. */
  readonly title: string | null;
  readonly decisionDate: string | null;
  readonly judges: readonly string[];
  readonly text: string;
}

export interface RenderedPdf {
  readonly bytes: Uint8Array;
  readonly pages: number;
  /** Characters the standard fonts could not draw as published (see WinAnsiFitter). */
  readonly replacedCharacters: number;
}

export const RENDERED_NOTICE = 'Rendered by the Court Records Research API from the published text of the judgment; not a certified copy.';

const PAGE = { width: 595.28, height: 841.89, margin: 56 };
const BODY = { size: 10.5, leading: 14 };
const GREY = rgb(0.35, 0.35, 0.35);

interface Fonts {
  readonly body: PDFFont;
  readonly bold: PDFFont;
  readonly italic: PDFFont;
}

/** Writes lines top to bottom, opening a new page when one is full. */
class Flow {
  private page: PDFPage;
  private y: number;
  readonly pages: PDFPage[] = [];
  replaced = 0;

  constructor(
    private readonly doc: PDFDocument,
    private readonly fitter: WinAnsiFitter,
  ) {
    this.page = this.addPage();
    this.y = PAGE.height - PAGE.margin;
  }

  private addPage(): PDFPage {
    const page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.pages.push(page);
    return page;
  }

  gap(points: number): void {
    this.y -= points;
  }

  /** Wraps one paragraph to the text width and draws it. */
  paragraph(raw: string, font: PDFFont, size: number, leading: number, color = rgb(0, 0, 0)): void {
    const fitted = this.fitter.fit(raw);
    this.replaced += fitted.replaced;
    for (const line of wrap(fitted.text, font, size, PAGE.width - 2 * PAGE.margin)) {
      if (this.y - leading < PAGE.margin + 12) {
        this.page = this.addPage();
        this.y = PAGE.height - PAGE.margin;
      }
      this.y -= leading;
      if (line !== '') this.page.drawText(line, { x: PAGE.margin, y: this.y, size, font, color });
    }
  }

  rule(): void {
    this.y -= 6;
    this.page.drawLine({
      start: { x: PAGE.margin, y: this.y },
      end: { x: PAGE.width - PAGE.margin, y: this.y },
      thickness: 0.5,
      color: GREY,
    });
    this.y -= 8;
  }
}

/** Greedy word wrap; a word wider than a whole line is cut where it overflows. */
function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const space = font.widthOfTextAtSize(' ', size);
  const lines: string[] = [];
  let line = '';
  let lineWidth = 0;
  for (let word of text.split(' ')) {
    if (word === '') continue;
    let wordWidth = font.widthOfTextAtSize(word, size);
    if (line !== '' && lineWidth + space + wordWidth > width) {
      lines.push(line);
      line = '';
    }
    while (line === '' && wordWidth > width) {
      let cut = 1;
      while (cut < word.length - 1 && font.widthOfTextAtSize(word.slice(0, cut + 1), size) <= width) cut += 1;
      lines.push(word.slice(0, cut));
      word = word.slice(cut);
      wordWidth = font.widthOfTextAtSize(word, size);
    }
    lineWidth = line === '' ? wordWidth : lineWidth + space + wordWidth;
    line = line === '' ? word : `${line} ${word}`;
  }
  return line !== '' || lines.length === 0 ? [...lines, line] : lines;
}

/** Paragraphs of the published text: line endings unified, runs of blank lines kept as one. */
function paragraphs(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, ' ')
    .split('\n')
    .map((l) => l.replace(/ {2,}/g, ' ').trim())
    .filter((l, i, all) => l !== '' || (i > 0 && all[i - 1] !== ''));
}

function header(flow: Flow, fonts: Fonts, judgment: JudgmentForPdf): void {
  flow.paragraph(judgment.courtName, fonts.bold, 13, 17);
  flow.paragraph(judgment.caseNumber, fonts.bold, 11.5, 15);
  if (judgment.title) flow.paragraph(judgment.title, fonts.body, 11, 14);
  flow.gap(4);
  flow.paragraph(`Decided: ${judgment.decisionDate ?? 'date not given in the source'}`, fonts.body, 9.5, 12.5, GREY);
  if (judgment.judges.length > 0) flow.paragraph(`Bench: ${judgment.judges.join('; ')}`, fonts.body, 9.5, 12.5, GREY);
  flow.paragraph(`Case id: ${judgment.caseId}`, fonts.body, 9.5, 12.5, GREY);
  flow.paragraph(RENDERED_NOTICE, fonts.italic, 8.5, 11, GREY);
  flow.rule();
}

function footers(pages: readonly PDFPage[], font: PDFFont, label: string): void {
  pages.forEach((page, i) => {
    const text = `${label} - page ${i + 1} of ${pages.length}`;
    const x = PAGE.width - PAGE.margin - font.widthOfTextAtSize(text, 8);
    page.drawText(text, { x: Math.max(PAGE.margin, x), y: PAGE.margin - 20, size: 8, font, color: GREY });
  });
}

export async function renderJudgmentPdf(judgment: JudgmentForPdf): Promise<RenderedPdf> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const fonts: Fonts = {
    body: await doc.embedFont(StandardFonts.TimesRoman),
    bold: await doc.embedFont(StandardFonts.TimesRomanBold),
    italic: await doc.embedFont(StandardFonts.TimesRomanItalic),
  };
  // The three Times faces share WinAnsi, so one fitter serves them all.
  const fitter = new WinAnsiFitter(fonts.body.getCharacterSet());
  const flow = new Flow(doc, fitter);
  header(flow, fonts, judgment);
  for (const paragraph of paragraphs(judgment.text)) flow.paragraph(paragraph, fonts.body, BODY.size, BODY.leading);
  footers(flow.pages, fonts.body, fitter.fit(judgment.caseNumber).text);

  doc.setTitle(judgment.title ? `${judgment.caseNumber}: ${judgment.title}` : judgment.caseNumber);
  doc.setSubject(`${judgment.courtName}, ${judgment.caseNumber}`);
  doc.setAuthor(judgment.courtName);
  doc.setCreator('Court Records Research API');
  doc.setProducer('Court Records Research API (pdf-lib)');
  if (judgment.decisionDate) {
    const decided = new Date(`${judgment.decisionDate}T00:00:00Z`);
    if (!Number.isNaN(decided.getTime())) {
      doc.setCreationDate(decided);
      doc.setModificationDate(decided);
    }
  }
  const bytes = await doc.save({ useObjectStreams: true });
  return { bytes, pages: flow.pages.length, replacedCharacters: flow.replaced };
}
