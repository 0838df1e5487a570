// French formats shared by the screens (Intl fr-FR), so a date or a number reads the same everywhere.

export const NUMBER = new Intl.NumberFormat('fr-FR');
const DATE = new Intl.DateTimeFormat('fr-FR', { day: 'numeric', month: 'short', year: 'numeric' });
const TIME = new Intl.DateTimeFormat('fr-FR', { hour: '2-digit', minute: '2-digit' });
const DAY = new Intl.DateTimeFormat('fr-FR', { dateStyle: 'medium', timeZone: 'UTC' });

function parse(value: string | null | undefined): Date | null {
  if (!value) return null;
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T12:00:00` : value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** '12 nov. 2026' */
export function formatDate(value: string | null | undefined): string {
  const d = parse(value);
  return d ? DATE.format(d) : '—';
}

/** '12 nov. 2026 à 14:05' */
export function formatDateTime(value: string | null | undefined): string {
  const d = parse(value);
  return d ? `${DATE.format(d)} à ${TIME.format(d)}` : '—';
}

/** '31 juil. 2025' for a calendar day 'YYYY-MM-DD' (read as such, whatever the time zone). */
export function formatDay(value: string | null | undefined): string {
  if (!value) return '—';
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  return Number.isNaN(d.getTime()) ? '—' : DAY.format(d);
}

/** '1 254 vulnérabilités', '1 vulnérabilité', '0 vulnérabilité' */
export function plural(count: number, one: string, many: string): string {
  return `${NUMBER.format(count)} ${count > 1 ? many : one}`;
}
