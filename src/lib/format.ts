// French formats shared by the screens (Intl fr-FR), so a date or a number reads the same everywhere.

export const NUMBER = new Intl.NumberFormat('fr-FR');

// The time zone every date is shown in: the platform's (system settings, src/lib/appearance.ts), else the device's.
let zone: string | undefined;
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Shows every date in `timeZone` from now on (undefined or unknown: the device's zone). */
export function setDisplayTimeZone(timeZone: string | undefined): void {
  let next: string | undefined;
  try {
    next = timeZone ? new Intl.DateTimeFormat('fr-FR', { timeZone }).resolvedOptions().timeZone : undefined;
  } catch {
    next = undefined;
  }
  if (next === zone) return;
  zone = next;
  formatters.clear();
}

export function displayTimeZone(): string {
  return zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * A French date format in the display time zone (options that name their own zone, e.g. a calendar day read in
 * UTC, keep it). The one way screens format dates: a module-level constant follows a change of zone.
 */
export function dateFormat(options: Intl.DateTimeFormatOptions): Pick<Intl.DateTimeFormat, 'format' | 'formatToParts'> {
  const fixed = options.timeZone !== undefined;
  const key = JSON.stringify(options);
  const current = () => {
    const id = fixed ? key : `${zone ?? ''}|${key}`;
    let f = formatters.get(id);
    if (!f) {
      f = new Intl.DateTimeFormat('fr-FR', fixed || !zone ? options : { ...options, timeZone: zone });
      formatters.set(id, f);
    }
    return f;
  };
  return { format: (date) => current().format(date), formatToParts: (date) => current().formatToParts(date) };
}

const DATE = dateFormat({ day: 'numeric', month: 'short', year: 'numeric' });
const TIME = dateFormat({ hour: '2-digit', minute: '2-digit' });
const DAY = dateFormat({ dateStyle: 'medium', timeZone: 'UTC' });

function parse(value: string | null | undefined): Date | null {
  if (!value) return null;
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T12:00:00` : value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Today as 'AAAA-MM-JJ' on the device's calendar (what a date field compares with). */
export function todayIso(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
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
