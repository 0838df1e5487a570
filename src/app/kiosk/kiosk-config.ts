/** The kiosk's URL (signed-in use): /kiosk?panels=vulnerabilities,act,threats&interval=30&theme=light&text=large */
import {
  DEFAULT_ROTATION_S,
  DISPLAY_PANELS,
  DISPLAY_PANEL_TITLES,
  DISPLAY_TEXT_SIZES,
  DISPLAY_THEMES,
  MAX_ROTATION_S,
  MIN_ROTATION_S,
  type DisplayPanel,
  type DisplayTextSize,
  type DisplayTheme,
} from '../../../contract/displays.ts';
import type { Display } from '../../lib/display-device.ts';

export const PANEL_IDS = DISPLAY_PANELS;
export type PanelId = DisplayPanel;
export type KioskTheme = DisplayTheme;
export type KioskTextSize = DisplayTextSize;

export const PANEL_TITLES: Record<PanelId, string> = DISPLAY_PANEL_TITLES;

/** What a bare /kiosk shows (signed in): the panels it always had; the others are asked by name. */
export const DEFAULT_PANELS: readonly PanelId[] = ['vulnerabilities', 'threats', 'tasks', 'overview'];

const THEMES: readonly KioskTheme[] = DISPLAY_THEMES;
const TEXT_SIZES: readonly KioskTextSize[] = DISPLAY_TEXT_SIZES;

export const DEFAULT_INTERVAL_S = DEFAULT_ROTATION_S;
export const MIN_INTERVAL_S = MIN_ROTATION_S;
export const MAX_INTERVAL_S = MAX_ROTATION_S;

/** Data refresh while the screen is visible (ms); hidden, nothing is asked until it shows again. */
export const REFRESH_VISIBLE_MS = 60_000;
/** Retry after a failure: 5 s, 10 s, 20 s… up to 2 min, until the backend answers again. */
export const RETRY_BASE_MS = 5_000;
export const RETRY_MAX_MS = 120_000;
/** Data older than this is announced by an amber bar (twice the refresh interval), then a red one. */
export const STALE_AMBER_MS = 2 * REFRESH_VISIBLE_MS;
export const STALE_RED_MS = 15 * 60_000;
/** The cursor and the buttons hide after this long without pointer movement (ms). */
export const IDLE_CURSOR_MS = 3_000;

export interface KioskConfig {
  panels: PanelId[];
  intervalS: number;
  theme: KioskTheme;
  textSize: KioskTextSize;
}

/** Known panel names in their order, duplicates dropped. */
export function knownPanels(names: readonly string[]): PanelId[] {
  const asked = names
    .map((p) => p.trim().toLowerCase())
    .filter((p): p is PanelId => (PANEL_IDS as readonly string[]).includes(p));
  return asked.filter((p, i) => asked.indexOf(p) === i);
}

export function clampInterval(raw: unknown): number {
  const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  return typeof n === 'number' && Number.isFinite(n) && n > 0
    ? Math.min(MAX_INTERVAL_S, Math.max(MIN_INTERVAL_S, Math.round(n)))
    : DEFAULT_INTERVAL_S;
}

const oneOf = <T extends string>(allowed: readonly T[], value: unknown, fallback: T): T =>
  (allowed as readonly unknown[]).includes(value) ? (value as T) : fallback;

/** Unknown panel names are ignored, duplicates dropped; nothing valid → the default panels. Interval clamped. */
export function parseKioskConfig(search: string): KioskConfig {
  const params = new URLSearchParams(search);
  const panels = knownPanels((params.get('panels') ?? '').split(','));
  return {
    panels: panels.length > 0 ? panels : [...DEFAULT_PANELS],
    intervalS: params.get('interval') !== null ? clampInterval(params.get('interval')) : DEFAULT_INTERVAL_S,
    theme: oneOf(THEMES, params.get('theme'), 'dark'),
    textSize: oneOf(TEXT_SIZES, params.get('text'), 'normal'),
  };
}

/** A paired screen's configuration (docs/displays.md `Display`), read defensively: a bad field falls back. */
export function displayConfig(display: Display): KioskConfig {
  const panels = knownPanels(Array.isArray(display.panels) ? display.panels : []);
  return {
    panels: panels.length > 0 ? panels : [...DEFAULT_PANELS],
    intervalS: clampInterval(display.rotation_s),
    theme: oneOf(THEMES, display.theme, 'dark'),
    textSize: oneOf(TEXT_SIZES, display.text_size, 'normal'),
  };
}

/** Delay before the next refresh while visible: backoff after failures, else the visible cadence. */
export function nextRefreshDelay(failures: number): number {
  if (failures > 0) return Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (failures - 1));
  return REFRESH_VISIBLE_MS;
}

/** How stale the data shown is: nothing to say, amber past twice the refresh interval, red past 15 minutes. */
export function alarmLevel(ageMs: number): 'amber' | 'red' | null {
  if (ageMs > STALE_RED_MS) return 'red';
  if (ageMs > STALE_AMBER_MS) return 'amber';
  return null;
}
