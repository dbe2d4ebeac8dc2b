/**
 * What both ClickHouse transports send and receive, decided once so they cannot drift:
 * how a JS value becomes a query parameter or an inserted field, which table names are
 * accepted, and how an engine error becomes an AnalyticsError.
 *
 * Both transports bind `{name:Type}` placeholders natively (the HTTP client through
 * `query_params`, chdb through `queryBindAsync`), so values never enter the SQL text and
 * the engine parses each one as its declared type. Each library turns JS values into
 * parameter text its own way, and they disagree on Dates (Unix seconds against UTC text)
 * and booleans, so values are narrowed here first to strings, numbers, bigints and nulls,
 * on which the two agree.
 */
import { AnalyticsError, type AnalyticsParam, type AnalyticsScalar } from '../../ports/analytics.ts';

export type WireScalar = string | number | bigint | null;
export type WireParam = WireScalar | WireScalar[];

/** Settings pinned on both transports so the same SQL answers the same way. */
export const SHARED_SETTINGS = {
  // ClickHouse's own default, stated because chdb's embedded default differs.
  output_format_json_quote_64bit_integers: 1,
  // now(), toDate() of a zone-less value and friends use UTC, whatever the host says.
  session_timezone: 'UTC',
  // A misspelt column in a projector fails loudly instead of being dropped.
  input_format_skip_unknown_fields: 0,
} as const;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TABLE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/**
 * UTC text that DateTime64(3, 'UTC') and DateTime('UTC') both parse: the fraction is left
 * out when it is zero, since DateTime refuses a fraction.
 */
export function formatUtc(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new TypeError('invalid Date');
  const iso = date.toISOString();
  const seconds = `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  return date.getUTCMilliseconds() === 0 ? seconds : `${seconds}.${iso.slice(20, 23)}`;
}

function wireScalar(value: AnalyticsScalar, what: string): WireScalar {
  if (value === null) return null;
  if (value instanceof Date) return formatUtc(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`${what} is not a finite number`);
  return value;
}

export function toWireParams(params: Readonly<Record<string, AnalyticsParam>> = {}): Record<string, WireParam> {
  const wire: Record<string, WireParam> = {};
  for (const [name, value] of Object.entries(params)) {
    if (!IDENTIFIER.test(name)) throw new TypeError(`query parameter name ${JSON.stringify(name)} is not an identifier`);
    wire[name] = Array.isArray(value)
      ? (value as readonly AnalyticsScalar[]).map((v) => wireScalar(v, `parameter ${name}`))
      : wireScalar(value as AnalyticsScalar, `parameter ${name}`);
  }
  return wire;
}

function wireField(value: unknown, what: string): unknown {
  if (value instanceof Date) return formatUtc(value);
  // JSON has no bigint; ClickHouse reads a quoted integer into an integer column.
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`${what} is not a finite number`);
  if (Array.isArray(value)) return value.map((v: unknown) => wireField(v, what));
  return value;
}

/** A row as JSONEachRow should carry it: Dates as UTC text, bigints as decimal strings. */
export function toWireRow(row: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (value !== undefined) wire[column] = wireField(value, `column ${column}`);
  }
  return wire;
}

/** Table names are spliced into INSERT by both clients, so only plain identifiers pass. */
export function assertTableName(table: string): void {
  if (!TABLE.test(table)) throw new TypeError(`table name ${JSON.stringify(table)} is not an identifier`);
}

/**
 * Reads "Code: 60. DB::Exception: <message>. (UNKNOWN_TABLE) (version ...)" as the engine
 * writes it. A wrapped error repeats the frame, so the innermost message is taken.
 */
export function engineError(text: string, cause?: unknown): AnalyticsError {
  const code = /Code: (\d+)/.exec(text)?.[1];
  const marker = 'Exception: ';
  const start = text.lastIndexOf(marker);
  let body = start >= 0 ? text.slice(start + marker.length) : text;
  body = body.replace(/(?<!\s)\s*\(version [^)]*\)\.?\s*$/, '');
  const type = /\(([A-Z][A-Z0-9_]{2,})\)\s*$/.exec(body);
  if (type) body = body.slice(0, type.index);
  return new AnalyticsError(
    body.trim(),
    code === undefined ? undefined : Number(code),
    type?.[1],
    cause === undefined ? undefined : { cause },
  );
}

/** Parses JSONEachRow output: one JSON object a line. */
export function parseJsonEachRow<T>(text: string): T[] {
  const rows: T[] = [];
  for (const line of text.split('\n')) if (line.length > 0) rows.push(JSON.parse(line) as T);
  return rows;
}
