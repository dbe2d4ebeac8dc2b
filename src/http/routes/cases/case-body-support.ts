/**
 * GET /cases/:id's body written as bytes: the case's fields are serialized as JSON, and
 * the marked summary and text go in as the JSON string bytes the marker wrote (see
 * application/watermark/marked-texts.ts), so a read never builds, escapes or encodes a
 * judgment's text. Parsed, the body is the CaseDetail the route documents.
 */
const encoder = new TextEncoder();
const NULL = encoder.encode('null');
const TEXT_KEY = encoder.encode(',"text":');

export function caseBody(fields: object, summary: Uint8Array | null, text: Uint8Array | null, meta: object): Uint8Array<ArrayBuffer> {
  const data = JSON.stringify(fields);
  if (!data.startsWith('{') || data === '{}') throw new Error('caseBody: the fields are not a non-empty object');
  const pieces = [
    encoder.encode(`{"success":true,"data":${data.slice(0, -1)},"summary":`),
    summary ?? NULL,
    TEXT_KEY,
    text ?? NULL,
    encoder.encode(`},"meta":${JSON.stringify(meta)}}`),
  ];
  const body = new Uint8Array(pieces.reduce((n, piece) => n + piece.length, 0));
  let at = 0;
  for (const piece of pieces) {
    body.set(piece, at);
    at += piece.length;
  }
  return body;
}
