import { signal } from '@preact/signals-react';
import {
  APPEARANCE_KEY,
  CHOICE_KEY,
  darkSchemeQuery,
  effectiveTheme,
  setTheme,
  storedChoice,
  storedItem,
  storeItem,
  type Theme,
  type ThemeChoice,
} from './theme-boot.ts';
import { setDisplayTimeZone } from './format.ts';
import { SOURCE_HEADER } from '../../contract/sw-messages.ts';

export type { Theme, ThemeChoice };

/**
 * How the app looks: the platform's name and default theme (system settings, read from the public
 * GET /api/system/appearance/) and this device's own theme choice. Both are kept in localStorage, read synchronously
 * at start so the first paint has the right colours: neither is a secret (the tokens and the profile stay in
 * IndexedDB), and the theme must be known before any script that could wait on IndexedDB.
 */

export interface Appearance {
  app_name: string;
  theme: Theme;
  /** The IANA zone every date is shown in; absent: the device's. */
  timezone?: string;
}

export const THEME_CHOICE_LABELS: Record<ThemeChoice, string> = {
  platform: 'Celui de la plateforme',
  system: 'Selon l’appareil',
  light: 'Clair',
  dark: 'Sombre',
};

const DEFAULTS: Appearance = { app_name: 'Vigie', theme: 'light' };

function appearanceOf(raw: unknown): Appearance | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const { app_name, theme, timezone } = raw as Record<string, unknown>;
  if (typeof app_name !== 'string' || !app_name.trim() || (theme !== 'light' && theme !== 'dark')) return null;
  return {
    app_name: app_name.trim().slice(0, 100),
    theme,
    ...(typeof timezone === 'string' && timezone ? { timezone } : {}),
  };
}

function readAppearance(): Appearance {
  try {
    return appearanceOf(JSON.parse(storedItem(APPEARANCE_KEY) ?? 'null')) ?? DEFAULTS;
  } catch {
    return DEFAULTS;
  }
}

export const appearance = signal<Appearance>(readAppearance());
export const themeChoice = signal<ThemeChoice>(storedChoice());

/** The theme in effect now. */
export const currentTheme = (): Theme => effectiveTheme(themeChoice.value, appearance.value.theme);

// The name last put in the tab's title: a title a screen set itself is left alone.
let applied = 'Vigie';

/** Puts the theme on <html data-theme> (the stylesheets' switch) and the name in the tab's title. */
export function applyAppearance(): void {
  setTheme(currentTheme());
  setDisplayTimeZone(appearance.value.timezone);
  const name = appearance.value.app_name;
  if (document.title === 'Vigie' || document.title === applied) document.title = name;
  applied = name;
}

/** This device's theme choice, kept and applied at once. */
export function chooseTheme(choice: ThemeChoice): void {
  themeChoice.value = choice;
  storeItem(CHOICE_KEY, choice);
  applyAppearance();
}

/**
 * Applies what is stored, follows the device's setting while it is the choice, then reads the platform's settings
 * (a failure keeps the stored ones: offline, an older backend). Returns the uninstaller.
 */
export function startAppearance(fetcher: typeof fetch = fetch): () => void {
  applyAppearance();
  const query = darkSchemeQuery();
  const onChange = () => {
    if (themeChoice.value === 'system') applyAppearance();
  };
  query?.addEventListener('change', onChange);
  void refreshAppearance(fetcher);
  return () => query?.removeEventListener('change', onChange);
}

export async function refreshAppearance(fetcher: typeof fetch = fetch): Promise<void> {
  try {
    const res = await fetcher('/api/system/appearance/', { headers: { Accept: 'application/json' } });
    // A sample answer from the service worker is not the platform's word on its own name.
    if (!res.ok || res.headers.get(SOURCE_HEADER) === 'sample') return;
    const next = appearanceOf(await res.json());
    if (!next) return;
    appearance.value = next;
    storeItem(APPEARANCE_KEY, JSON.stringify(next));
    applyAppearance();
  } catch {
    // Unreachable: the stored appearance stays.
  }
}
