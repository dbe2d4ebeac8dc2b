/**
 * Fitting text to the standard fonts' WinAnsi set, with the Times character set pdf-lib
 * itself reports and strings as the corpus prints them: what WinAnsi holds is kept, near
 * equivalents are spelled, accents are stripped, other scripts become "?" and every
 * change is counted.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { WinAnsiFitter } from '../../src/adapters/pdf/win-ansi-text.ts';

describe('WinAnsiFitter', () => {
  let fitter: WinAnsiFitter;
  before(async () => {
    const doc = await PDFDocument.create();
    fitter = new WinAnsiFitter((await doc.embedFont(StandardFonts.TimesRoman)).getCharacterSet());
  });

  it('keeps WinAnsi text as it is, typographic quotes and dashes included', () => {
    // hc-judges-khoj/KHOJ_1.8.csv
    for (const text of ['Pachiyappa’s College, Madras University', 'Date of such transfer – 2', 'civil appeal no. 460 of 1987']) {
      assert.deepEqual(fitter.fit(text), { text, replaced: 0 });
    }
  });

  it('replaces each character of another script with "?" and counts it', () => {
    // The language labels of the SC metadata's vernacular PDF links.
    assert.deepEqual(fitter.fit('(हिन्दी)'), { text: '(??????)', replaced: 6 });
    assert.deepEqual(fitter.fit('(আ·চিক)'), { text: '(?·???)', replaced: 4 });
  });

  it('spells near equivalents, strips accents and drops invisible controls, counting each', () => {
    assert.deepEqual(fitter.fit('₹ 5,000 − 10%'), { text: 'Rs. 5,000 - 10%', replaced: 2 });
    assert.deepEqual(fitter.fit('Dāmodar Śarmā'), { text: 'Damodar Sarma', replaced: 3 });
    assert.deepEqual(fitter.fit('ﬁnal\u200b\tword'), { text: 'final word', replaced: 3 });
  });
});
