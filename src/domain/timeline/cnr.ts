/**
 * The CNR (Case Number Record), eCourts' 16-character case identifier: four letters for
 * the state and court (GAHC, JKHC, KAHC), two digits for the establishment, six for the
 * case and four for the year. The portal prints it both compact (GAHC040007922024) and
 * grouped (GAHC04-000792-2024, on its case-history page); both read as the same CNR.
 */

const CNR = /^([A-Z]{4}\d{2})-?(\d{6})-?(\d{4})$/;
/** The grouped form's length: anything longer is no CNR, and is refused before it is upper-cased or matched. */
const MAX_CNR_LENGTH = 18;

/** The compact upper-case CNR, or null when `raw` is not one in either printed form. */
export function normaliseCnr(raw: string): string | null {
  const text = raw.trim();
  if (text.length > MAX_CNR_LENGTH) return null;
  const m = CNR.exec(text.toUpperCase());
  return m ? `${m[1] ?? ''}${m[2] ?? ''}${m[3] ?? ''}` : null;
}
