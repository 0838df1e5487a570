import { dateFormat } from '../../lib/format.ts';

/** French formats shared by the administration screens (Intl fr-FR). */
export const NUMBER = new Intl.NumberFormat('fr-FR');
const DECIMAL = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });
const DATE = dateFormat({ dateStyle: 'short' });
const DATE_TIME = dateFormat({ dateStyle: 'short', timeStyle: 'medium' });

function valid(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** A log level's badge colour (the logs console and the status screen's latest problems). */
export const LOG_LEVEL_BADGES: Record<string, string> = {
  debug: 'info',
  info: 'low',
  warning: 'medium',
  error: 'high',
  critical: 'critical',
};

export function formatDate(iso: string | null | undefined): string {
  const d = valid(iso);
  return d ? DATE.format(d) : '—';
}

export function formatDateTime(iso: string | null | undefined): string {
  const d = valid(iso);
  return d ? DATE_TIME.format(d) : '—';
}

const UNITS = ['o', 'Ko', 'Mo', 'Go', 'To', 'Po'];

/** 48234496 → « 46 Mo » (powers of 1024, French unit names). */
export function formatBytes(bytes: number | null | undefined): string {
  if (typeof bytes !== 'number' || !Number.isFinite(bytes) || bytes < 0) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? NUMBER.format(value) : DECIMAL.format(value)} ${UNITS[unit]}`;
}

/** 93784 → « 1 j 2 h 3 min »; under a minute, seconds. */
export function formatUptime(seconds: number | null | undefined): string {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.floor(seconds);
  if (s < 60) return `${s} s`;
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3_600);
  const minutes = Math.floor((s % 3_600) / 60);
  return [days ? `${NUMBER.format(days)} j` : '', hours ? `${hours} h` : '', minutes ? `${minutes} min` : '']
    .filter(Boolean)
    .join(' ');
}
