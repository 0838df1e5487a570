/** The kiosk's URL: /kiosk?panels=vulnerabilities,threats,tasks,overview&interval=30 */

export const PANEL_IDS = ['vulnerabilities', 'threats', 'tasks', 'overview'] as const;
export type PanelId = (typeof PANEL_IDS)[number];

export const PANEL_TITLES: Record<PanelId, string> = {
  vulnerabilities: 'Vulnérabilités',
  threats: 'Menaces',
  tasks: 'Tâches de fond',
  overview: 'Vue d’ensemble',
};

export const DEFAULT_INTERVAL_S = 30;
export const MIN_INTERVAL_S = 5;
export const MAX_INTERVAL_S = 3600;

/** Data refresh while the screen is visible, and while the page is hidden (ms). */
export const REFRESH_VISIBLE_MS = 60_000;
export const REFRESH_HIDDEN_MS = 5 * 60_000;
/** Retry after a failure: 5 s, 10 s, 20 s… up to 2 min, until the backend answers again. */
export const RETRY_BASE_MS = 5_000;
export const RETRY_MAX_MS = 120_000;
/** The cursor and the buttons hide after this long without pointer movement (ms). */
export const IDLE_CURSOR_MS = 3_000;

export interface KioskConfig {
  panels: PanelId[];
  intervalS: number;
}

/** Unknown panel names are ignored, duplicates dropped; nothing valid → every panel. Interval clamped. */
export function parseKioskConfig(search: string): KioskConfig {
  const params = new URLSearchParams(search);
  const asked = (params.get('panels') ?? '')
    .split(',')
    .map((p) => p.trim().toLowerCase())
    .filter((p): p is PanelId => (PANEL_IDS as readonly string[]).includes(p));
  const panels = asked.filter((p, i) => asked.indexOf(p) === i);
  const raw = Number(params.get('interval'));
  const intervalS =
    params.get('interval') !== null && Number.isFinite(raw) && raw > 0
      ? Math.min(MAX_INTERVAL_S, Math.max(MIN_INTERVAL_S, Math.round(raw)))
      : DEFAULT_INTERVAL_S;
  return { panels: panels.length > 0 ? panels : [...PANEL_IDS], intervalS };
}

/** Delay before the next refresh: backoff after failures, else the visible or hidden cadence. */
export function nextRefreshDelay(failures: number, hidden: boolean): number {
  if (hidden) return REFRESH_HIDDEN_MS;
  if (failures > 0) return Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (failures - 1));
  return REFRESH_VISIBLE_MS;
}
