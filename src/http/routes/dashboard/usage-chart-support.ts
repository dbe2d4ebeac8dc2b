/**
 * The usage chart as SVG drawn on the server: one stacked bar per UTC day, a segment per
 * endpoint. No script and no inline style (the CSP allows neither): colours are SVG
 * presentation attributes. Each segment carries its figures in a <title> (the browser's
 * tooltip) and in data- attributes.
 */
import { html } from 'hono/html';
import type { DailyEndpointUsage } from '../../../application/audit/usage-by-day.ts';
import type { Html } from './layout-support.ts';

/** The legend's swatches use the same colours, by index (.s0 to .s7 in the stylesheet). */
export const SERIES_COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];

const WIDTH = 900;
const HEIGHT = 300;
const MARGIN = { top: 16, right: 12, bottom: 40, left: 48 };

/** Every UTC day from `from` through `to`, as YYYY-MM-DD. */
export function daysBetween(from: Date, to: Date): string[] {
  const days: string[] = [];
  for (let t = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate()); t <= to.getTime(); t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

/** A round axis maximum at or above `max`: 1, 2 or 5 times a power of ten. */
function niceCeiling(max: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(1, max)));
  return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= max) ?? 10 * power;
}

export function usageChart(days: readonly string[], endpoints: readonly string[], usage: readonly DailyEndpointUsage[]): Html {
  const calls = new Map(usage.map((u) => [`${u.day} ${u.endpoint}`, u.calls]));
  const dayTotals = days.map((day) => endpoints.reduce((sum, endpoint) => sum + (calls.get(`${day} ${endpoint}`) ?? 0), 0));
  const top = niceCeiling(Math.max(0, ...dayTotals));
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const slot = plotWidth / Math.max(1, days.length);
  const y = (value: number) => MARGIN.top + plotHeight - (value / top) * plotHeight;

  // Calls are whole numbers: a middle gridline only where it falls on one.
  const ticks = [0, ...(top % 2 === 0 ? [top / 2] : []), top].map(
    (value) =>
      html`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(value)}" y2="${y(value)}" stroke="#e1e5ea" />
        <text x="${MARGIN.left - 6}" y="${y(value) + 4}" text-anchor="end" font-size="11" fill="#5b6673">${value}</text>`,
  );
  const bars = days.flatMap((day, i) => {
    let base = 0;
    return endpoints.flatMap((endpoint, series) => {
      const value = calls.get(`${day} ${endpoint}`) ?? 0;
      if (value === 0) return [];
      const rect = html`<rect
        x="${MARGIN.left + i * slot + slot * 0.15}"
        y="${y(base + value)}"
        width="${slot * 0.7}"
        height="${y(base) - y(base + value)}"
        fill="${SERIES_COLOURS[series % SERIES_COLOURS.length]}"
        data-day="${day}"
        data-endpoint="${endpoint}"
        data-calls="${value}"
        ><title>${day} ${endpoint}: ${value} calls</title></rect
      >`;
      base += value;
      return [rect];
    });
  });
  // A date label every week keeps thirty days legible.
  const labels = days.map((day, i) =>
    i % 7 === (days.length - 1) % 7
      ? html`<text
          x="${MARGIN.left + i * slot + slot / 2}"
          y="${HEIGHT - MARGIN.bottom + 16}"
          text-anchor="middle"
          font-size="11"
          fill="#5b6673"
          >${day.slice(5)}</text
        >`
      : '',
  );
  return html`<svg
    class="chart"
    data-testid="usage-chart"
    viewBox="0 0 ${WIDTH} ${HEIGHT}"
    role="img"
    aria-label="Calls per day by endpoint"
    xmlns="http://www.w3.org/2000/svg"
  >
    ${ticks} ${bars} ${labels}
    <text x="${MARGIN.left}" y="${HEIGHT - 6}" font-size="11" fill="#5b6673">UTC day</text>
  </svg>`;
}
