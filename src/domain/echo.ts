/**
 * Caller text quoted back in a validation detail ("unknown court ..."): its first
 * ECHO_MAX_CHARACTERS characters, then "…". Enough to see which value was
 * meant, and a value of 256 KiB does not come back 256 KiB long in the error body, its
 * message and the log line that records it. Pure.
 */

/** How much of a value a detail line quotes. */
export const ECHO_MAX_CHARACTERS = 60;

/** `text` cut to ECHO_MAX_CHARACTERS (a surrogate pair kept whole), with "…" when it was cut. */
export function shortened(text: string): string {
  if (text.length <= ECHO_MAX_CHARACTERS) return text;
  const last = text.charCodeAt(ECHO_MAX_CHARACTERS - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? ECHO_MAX_CHARACTERS - 1 : ECHO_MAX_CHARACTERS;
  return `${text.slice(0, end)}…`;
}

/** `text` shortened, in double quotes (a JSON string, so quotes and control characters inside are escaped). */
export function quoted(text: string): string {
  return JSON.stringify(shortened(text));
}
