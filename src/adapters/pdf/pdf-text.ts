/**
 * Text of a PDF (a stored judgment or one fetched from a court's site), page by page,
 * through unpdf's build of PDF.js, so a case held only as a document can be analysed.
 */
import { extractText, getDocumentProxy } from 'unpdf';

export async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    const { text } = await extractText(pdf, { mergePages: false });
    return text.join('\n\n');
  } finally {
    await pdf.destroy();
  }
}
