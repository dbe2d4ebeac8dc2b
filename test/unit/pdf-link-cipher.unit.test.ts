/**
 * The PDF link cipher against the spec's decryption contract: round trip, a fresh IV per
 * call, the `<hex IV>:<hex ciphertext>` form, decryption by an independent client written
 * from the spec text alone with Node's createDecipheriv, and refusal of malformed values.
 */
import assert from 'node:assert/strict';
import { createDecipheriv, createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { decryptPdfLink, encryptPdfLink, InvalidPdfLinkError } from '../../src/http/pdf-link-cipher.ts';

// A real case of the corpus (sc-judgments-text-ik50) and a link of the shape the service hands out.
const CASE_ID = 'sc-ik-1117226';
const CASE_NUMBER = 'civil appeal no. 460 of 1987';
const URL_ =
  'http://localhost:3000/api/v1/prod/documents/judgments/sc-ik-1117226.pdf?expires=1795667780&signature=d8df77b2bf8de2e98ecd98003cadb55e2b89b6ebdc67d325032fd9caa36803bc';

/** What a client does, from the spec: key = SHA-256(caseId + caseNumber), AES-256-CBC, UTF-8. */
function clientDecrypt(pdfUrl: string, caseId: string, caseNumber: string): string {
  const [ivHex, dataHex] = pdfUrl.split(':');
  const key = createHash('sha256')
    .update(caseId + caseNumber)
    .digest();
  const decipher = createDecipheriv('aes-256-cbc', key, Buffer.from(ivHex!, 'hex'));
  return decipher.update(dataHex!, 'hex', 'utf8') + decipher.final('utf8');
}

describe('PDF link cipher', () => {
  it('round-trips a link', () => {
    assert.equal(decryptPdfLink(encryptPdfLink(URL_, CASE_ID, CASE_NUMBER), CASE_ID, CASE_NUMBER), URL_);
  });

  it('writes a 16-byte hex IV, a colon and whole AES blocks of hex', () => {
    const value = encryptPdfLink(URL_, CASE_ID, CASE_NUMBER);
    assert.match(value, /^[0-9a-f]{32}:(?:[0-9a-f]{32})+$/);
    // PKCS#7 always pads: the ciphertext is the next multiple of 16 above the plaintext.
    const cipherBytes = value.split(':')[1]!.length / 2;
    assert.equal(cipherBytes, (Math.floor(Buffer.byteLength(URL_) / 16) + 1) * 16);
  });

  it('draws a fresh IV for every call', () => {
    const values = Array.from({ length: 50 }, () => encryptPdfLink(URL_, CASE_ID, CASE_NUMBER));
    assert.equal(new Set(values.map((v) => v.split(':')[0])).size, 50);
    assert.equal(new Set(values).size, 50);
  });

  it('decrypts with an independent client written from the spec', () => {
    assert.equal(clientDecrypt(encryptPdfLink(URL_, CASE_ID, CASE_NUMBER), CASE_ID, CASE_NUMBER), URL_);
  });

  it('keeps non-ASCII text intact as UTF-8', () => {
    const link = 'https://docs.example.in/judgments/न्याय.pdf?x=₹';
    assert.equal(clientDecrypt(encryptPdfLink(link, 'hc-ÄB', 'W.P.(C) 5678/2019'), 'hc-ÄB', 'W.P.(C) 5678/2019'), link);
  });

  it('does not give the link to another caseId or caseNumber', () => {
    const value = encryptPdfLink(URL_, CASE_ID, CASE_NUMBER);
    for (const [id, number] of [
      ['sc-ik-1117227', CASE_NUMBER],
      [CASE_ID, 'civil appeal no. 461 of 1987'],
    ] as const) {
      let decrypted: string | undefined;
      try {
        decrypted = decryptPdfLink(value, id, number);
      } catch (error) {
        assert.ok(error instanceof InvalidPdfLinkError);
      }
      assert.notEqual(decrypted, URL_);
    }
  });

  it('keys on the plain concatenation of caseId and caseNumber, as the spec says', () => {
    const value = encryptPdfLink(URL_, CASE_ID, CASE_NUMBER);
    assert.equal(decryptPdfLink(value, `${CASE_ID}${CASE_NUMBER}`, ''), URL_);
  });

  it('refuses values that are not exactly two colon-separated parts of hex', () => {
    const good = encryptPdfLink(URL_, CASE_ID, CASE_NUMBER);
    const [iv, data] = good.split(':') as [string, string];
    for (const bad of [
      '',
      iv,
      `${iv}${data}`,
      `${iv}:${data}:`,
      `${iv}:${data}:00`,
      `:${iv}:${data}`,
      `${iv}:`,
      `:${data}`,
      `${iv.slice(2)}:${data}`,
      `${iv}:${data.slice(2)}`,
      `${iv}:${data.replace(/^../, 'zz')}`,
      `${iv} :${data}`,
    ]) {
      assert.throws(() => decryptPdfLink(bad, CASE_ID, CASE_NUMBER), InvalidPdfLinkError, JSON.stringify(bad));
    }
  });
});
