/**
 * A customer's monthly credit statement as a one-page-or-more A4 PDF: the lines of
 * `statementLines` (application/credits/statement.ts) set in a standard font, so no font
 * file ships with the service. The output depends on the lines alone, never the clock.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';

const PAGE = { width: 595.28, height: 841.89, margin: 56 };
const SIZE = 10;
const LEADING = 14;

export async function renderStatementPdf(title: string, lines: readonly string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(title);
  doc.setProducer('Court Records Research API');
  // Fixed, so one statement always renders to the same bytes.
  doc.setCreationDate(new Date(0));
  doc.setModificationDate(new Date(0));
  const font = await doc.embedFont(StandardFonts.Courier);
  const bold = await doc.embedFont(StandardFonts.CourierBold);
  let page = doc.addPage([PAGE.width, PAGE.height]);
  let y = PAGE.height - PAGE.margin;
  for (const [i, line] of [title, '', ...lines].entries()) {
    if (y < PAGE.margin) {
      page = doc.addPage([PAGE.width, PAGE.height]);
      y = PAGE.height - PAGE.margin;
    }
    page.drawText(line, { x: PAGE.margin, y, size: i === 0 ? SIZE + 2 : SIZE, font: i === 0 ? bold : font });
    y -= LEADING;
  }
  return doc.save();
}
