import type { FindingSeverity } from '../../../contract/severity.ts';

export type ChartTheme = 'light' | 'dark';

export interface ChartPalette {
  /** Each severity's colour, « Non évaluée » included (a pale grey, never Info's). */
  severity: Record<FindingSeverity, string>;
  /** Line and bar colour. */
  accent: string;
  /** Axis labels and tooltips text. */
  ink: string;
  grid: string;
  /** Behind the chart: separates donut slices. */
  surface: string;
}

/** Defaults, equal to the CSS variables of charts.css (used when the variables cannot be read). */
export const PALETTES: Record<ChartTheme, ChartPalette> = {
  light: {
    severity: {
      critical: '#8e1b1b',
      high: '#c2410c',
      medium: '#b7791f',
      low: '#1d63d6',
      info: '#6b7280',
      unrated: '#d1d5db',
    },
    accent: '#1f6feb',
    ink: '#14213d',
    grid: '#d8dee8',
    surface: '#ffffff',
  },
  dark: {
    severity: {
      critical: '#ff5c5c',
      high: '#ff922b',
      medium: '#fcc419',
      low: '#5c9dff',
      info: '#a3acb9',
      unrated: '#4a5568',
    },
    accent: '#5c9dff',
    ink: '#e6edf7',
    grid: '#34465e',
    surface: '#0b1f33',
  },
};

/** Reads the palette from the CSS variables in effect on `el` (so a dark container recolours the charts). */
export function readPalette(el: Element | null, theme: ChartTheme): ChartPalette {
  const fallback = PALETTES[theme];
  if (!el || typeof getComputedStyle !== 'function') return fallback;
  const style = getComputedStyle(el);
  const read = (name: string, def: string) => style.getPropertyValue(name).trim() || def;
  return {
    severity: {
      critical: read('--sev-critical', fallback.severity.critical),
      high: read('--sev-high', fallback.severity.high),
      medium: read('--sev-medium', fallback.severity.medium),
      low: read('--sev-low', fallback.severity.low),
      info: read('--sev-info', fallback.severity.info),
      unrated: read('--sev-unrated', fallback.severity.unrated),
    },
    accent: read('--chart-accent', fallback.accent),
    ink: read('--chart-ink', fallback.ink),
    grid: read('--chart-grid', fallback.grid),
    surface: read('--chart-surface', fallback.surface),
  };
}

export const NUMBER = new Intl.NumberFormat('fr-FR');
