/** RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled; null is empty. Pure. */
export function csvField(value: string | number | null): string {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
