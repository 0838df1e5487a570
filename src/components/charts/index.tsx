/**
 * Shared charts (vulnerability dashboard, kiosk, other dashboards).
 *
 * - chart.js is loaded on first draw by a dynamic import (its own chunk), with only the pieces used registered.
 * - Every chart renders a <canvas> (hidden from assistive technologies) and a table with the same numbers: visually
 *   hidden when the canvas is drawn, shown instead of it where canvas is unavailable (e.g. happy-dom in tests).
 * - Colours come from CSS variables read on the chart's <figure>: `--sev-critical`, `--sev-high`, `--sev-medium`,
 *   `--sev-low`, `--sev-info`, `--sev-unrated`, `--chart-accent`, `--chart-ink`, `--chart-grid`, `--chart-surface`. charts.css
 *   defines them for the light theme on :root and for a dark theme on `[data-theme='dark']` and `.theme-dark`
 *   (put either on a container, e.g. the kiosk root, or pass `theme="dark"` to a chart). Values are read when the
 *   chart is drawn and whenever its props change.
 * - `size="large"` is for wall screens: taller canvas, bigger fonts, thicker lines.
 * - prefers-reduced-motion: reduce → no animation. Instances are destroyed on unmount and updated in place.
 */
import type { ReactNode } from 'react';
import type { ChartConfiguration } from 'chart.js';
import {
  FINDING_SEVERITIES,
  FINDING_SEVERITY_LABELS,
  SEVERITIES,
  type FindingSeverity,
  type Severity,
} from '../../../contract/severity.ts';
import { NUMBER, type ChartPalette, type ChartTheme } from './palette.ts';
import { useChart, type BuildConfig } from './use-chart.ts';
import './charts.css';
import { dateFormat } from '../../lib/format.ts';

export { PALETTES, type ChartTheme } from './palette.ts';

export type ChartSize = 'normal' | 'large';
/**
 * Counts per severity. Findings' counts carry `unrated` (« Non évaluée », its own slice after Info, even at 0);
 * threats', which have no such value, leave it out and keep the five scored severities.
 */
export type SeverityDistribution = Record<Severity, number> & { unrated?: number };

/** The severities a distribution is drawn with: the five scored ones, and « Non évaluée » when it counts it. */
export function severitiesOf(distribution: SeverityDistribution): readonly FindingSeverity[] {
  return distribution.unrated === undefined ? SEVERITIES : FINDING_SEVERITIES;
}

interface Metrics {
  font: number;
  line: number;
  point: number;
}

function metricsOf(size: ChartSize): Metrics {
  return size === 'large' ? { font: 20, line: 4, point: 4 } : { font: 12, line: 2, point: 2 };
}

function commonOptions(palette: ChartPalette, reducedMotion: boolean, m: Metrics) {
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: reducedMotion ? (false as const) : { duration: 400 },
    color: palette.ink,
    font: { size: m.font },
    plugins: {
      legend: { display: false },
      tooltip: { bodyFont: { size: m.font }, titleFont: { size: m.font } },
    },
  };
}

const SHORT_DATE = dateFormat({ day: 'numeric', month: 'short', timeZone: 'UTC' });
const LONG_DATE = dateFormat({
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});

function parseDay(date: string): Date | null {
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(date) ? `${date}T00:00:00Z` : date);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** '12 nov.' for a 'YYYY-MM-DD' day (read as a calendar day, whatever the time zone). */
export function formatDayShort(date: string): string {
  const d = parseDay(date);
  return d ? SHORT_DATE.format(d) : date;
}

/** '12 nov. 2026' */
export function formatDayLong(date: string): string {
  const d = parseDay(date);
  return d ? LONG_DATE.format(d) : date;
}

/** '#1f6feb' → '#1f6feb2e'; other colour syntaxes are returned unchanged. */
function withAlpha(color: string, alpha: number): string {
  if (!/^#[0-9a-f]{6}$/i.test(color)) return color;
  return (
    color +
    Math.round(alpha * 255)
      .toString(16)
      .padStart(2, '0')
  );
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Axis labels: the ink colour at the chart's font size. */
function tickStyle(palette: ChartPalette, m: Metrics) {
  return { color: palette.ink, font: { size: m.font } };
}

/** The axis of counts: from zero, whole numbers, with grid lines. */
function countAxis(palette: ChartPalette, m: Metrics) {
  return { beginAtZero: true, ticks: { ...tickStyle(palette, m), precision: 0 }, grid: { color: palette.grid } };
}

interface FrameProps {
  className: string;
  size: ChartSize;
  theme: ChartTheme | undefined;
  title: string | undefined;
  /** The chart.js configuration, and its serialised inputs: the chart is updated when they change. */
  build: BuildConfig;
  chartKey: string;
  overlay?: ReactNode;
  /** Canvas height in px when it depends on the data (bars); else set by CSS from the size. */
  height?: number;
  /** The accessible table: its caption, the head of its first column (the second one is « Nombre »), its rows. */
  caption: string;
  column: string;
  rows: ReactNode;
  foot?: ReactNode;
}

function ChartFrame(props: FrameProps) {
  const { className, size, theme, title, build, chartKey, overlay, height, caption, column, rows, foot } = props;
  const { figureRef, canvasRef, supported } = useChart(build, chartKey, theme ?? 'light');
  return (
    <figure
      ref={figureRef}
      className={`chart ${className} chart-${size}${supported ? '' : ' chart-no-canvas'}`}
      data-theme={theme}
    >
      {title && <figcaption className="chart-title">{title}</figcaption>}
      {supported && (
        <div className="chart-canvas" style={height ? { height } : undefined}>
          <canvas ref={canvasRef} aria-hidden="true" />
          {overlay}
        </div>
      )}
      <div className={supported ? 'visually-hidden' : 'chart-fallback'}>
        <table className="chart-table">
          <caption>{caption}</caption>
          <thead>
            <tr>
              <th scope="col">{column}</th>
              <th scope="col">Nombre</th>
            </tr>
          </thead>
          <tbody>{rows}</tbody>
          {foot && <tfoot>{foot}</tfoot>}
        </table>
      </div>
    </figure>
  );
}

export interface SeverityDonutProps {
  distribution: SeverityDistribution;
  size?: ChartSize;
  title?: string;
  theme?: ChartTheme;
}

/** Findings by severity, with the total in the middle. */
export function SeverityDonut({ distribution, size = 'normal', title, theme }: SeverityDonutProps) {
  const severities = severitiesOf(distribution);
  const values = severities.map((s) => distribution[s] ?? 0);
  const total = values.reduce((a, b) => a + b, 0);
  const build = (palette: ChartPalette, reducedMotion: boolean): ChartConfiguration => {
    const m = metricsOf(size);
    const config: ChartConfiguration<'doughnut'> = {
      type: 'doughnut',
      data: {
        labels: severities.map((s) => FINDING_SEVERITY_LABELS[s]),
        datasets: [
          {
            data: values,
            backgroundColor: severities.map((s) => palette.severity[s]),
            borderColor: palette.surface,
            borderWidth: m.line,
          },
        ],
      },
      options: { ...commonOptions(palette, reducedMotion, m), cutout: '62%' },
    };
    return config;
  };
  return (
    <ChartFrame
      className="chart-donut"
      size={size}
      theme={theme}
      title={title}
      build={build}
      chartKey={`${size}|${severities.length}|${values.join(',')}`}
      overlay={
        <p className="chart-center" aria-hidden="true">
          <strong>{NUMBER.format(total)}</strong>
          <span>{total === 0 ? 'aucune' : 'au total'}</span>
        </p>
      }
      caption={title ?? 'Répartition par gravité'}
      column="Gravité"
      rows={severities.map((s, i) => (
        <tr key={s} data-severity={s}>
          <th scope="row">
            <span className={`sev-dot sev-${s}`} aria-hidden="true" />
            {FINDING_SEVERITY_LABELS[s]}
          </th>
          <td>{NUMBER.format(values[i] ?? 0)}</td>
        </tr>
      ))}
      foot={
        <tr>
          <th scope="row">Total</th>
          <td>{NUMBER.format(total)}</td>
        </tr>
      }
    />
  );
}

/** A chart of one series, named by `label` (its title and its table's caption). */
interface SeriesProps {
  label: string;
  size?: ChartSize;
  theme?: ChartTheme;
}

export interface TrendLineProps extends SeriesProps {
  points: { date: string; count: number }[];
}

/** A count per day ('YYYY-MM-DD'), oldest first. */
export function TrendLine({ points, label, size = 'normal', theme }: TrendLineProps) {
  const build = (palette: ChartPalette, reducedMotion: boolean): ChartConfiguration => {
    const m = metricsOf(size);
    return {
      type: 'line',
      data: {
        labels: points.map((p) => formatDayShort(p.date)),
        datasets: [
          {
            label,
            data: points.map((p) => p.count),
            borderColor: palette.accent,
            backgroundColor: withAlpha(palette.accent, 0.18),
            fill: true,
            borderWidth: m.line,
            pointRadius: points.length > 45 ? 0 : m.point,
            tension: 0.25,
          },
        ],
      },
      options: {
        ...commonOptions(palette, reducedMotion, m),
        scales: {
          x: { ticks: { ...tickStyle(palette, m), maxRotation: 0, autoSkip: true }, grid: { display: false } },
          y: countAxis(palette, m),
        },
      },
    };
  };
  return (
    <ChartFrame
      className="chart-line"
      size={size}
      theme={theme}
      title={label}
      build={build}
      chartKey={`${size}|${label}|${points.map((p) => `${p.date}:${p.count}`).join(',')}`}
      caption={label}
      column="Date"
      rows={points.map((p) => (
        <tr key={p.date}>
          <th scope="row">
            <time dateTime={p.date}>{formatDayLong(p.date)}</time>
          </th>
          <td>{NUMBER.format(p.count)}</td>
        </tr>
      ))}
    />
  );
}

export interface HorizontalBarsProps extends SeriesProps {
  /** `lang` marks a label in another language than the page's (a CWE's English name). */
  items: { label: string; value: number; lang?: string }[];
}

/** Ranked values (top assets, top CWE…), largest first as given. */
export function HorizontalBars({ items, label, size = 'normal', theme }: HorizontalBarsProps) {
  const build = (palette: ChartPalette, reducedMotion: boolean): ChartConfiguration => {
    const m = metricsOf(size);
    const labels = items.map((i) => i.label);
    return {
      type: 'bar',
      data: {
        labels,
        datasets: [
          {
            label,
            data: items.map((i) => i.value),
            backgroundColor: palette.accent,
            borderRadius: 4,
            maxBarThickness: size === 'large' ? 40 : 22,
          },
        ],
      },
      options: {
        ...commonOptions(palette, reducedMotion, m),
        indexAxis: 'y',
        scales: {
          x: countAxis(palette, m),
          y: {
            ticks: {
              ...tickStyle(palette, m),
              callback: (value) => truncate(labels[Number(value)] ?? String(value), size === 'large' ? 32 : 24),
            },
            grid: { display: false },
          },
        },
      },
    };
  };
  return (
    <ChartFrame
      className="chart-bars"
      size={size}
      height={Math.max(items.length, 3) * (size === 'large' ? 52 : 32) + 40}
      theme={theme}
      title={label}
      build={build}
      chartKey={`${size}|${label}|${items.map((i) => `${i.label}:${i.value}`).join('\u0000')}`}
      caption={label}
      column="Libellé"
      rows={items.map((i, n) => (
        <tr key={`${n}-${i.label}`}>
          <th scope="row" lang={i.lang}>
            {i.label}
          </th>
          <td>{NUMBER.format(i.value)}</td>
        </tr>
      ))}
    />
  );
}
