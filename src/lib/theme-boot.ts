/**
 * The theme, set on <html data-theme> before anything else runs (src/main.ts), so the first paint has the right
 * colours. No imports: it is part of the entry file. src/lib/appearance.ts keeps it up to date afterwards.
 */

export type Theme = 'light' | 'dark';
/** « platform »: the platform's default (system settings); « system »: the device's light or dark setting. */
export type ThemeChoice = 'platform' | 'system' | Theme;

export const APPEARANCE_KEY = 'vigie.appearance';
export const CHOICE_KEY = 'vigie.theme';

export function storedItem(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function storeItem(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Private mode or storage full: the choice holds for this visit.
  }
}

export function storedChoice(): ThemeChoice {
  const v = storedItem(CHOICE_KEY);
  return v === 'system' || v === 'light' || v === 'dark' ? v : 'platform';
}

/** The device's light or dark setting (null where the browser cannot tell). */
export function darkSchemeQuery(): MediaQueryList | null {
  return typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
}

/** The theme in effect: the device's choice, else the platform's default. */
export function effectiveTheme(choice: ThemeChoice, platform: Theme): Theme {
  if (choice === 'light' || choice === 'dark') return choice;
  if (choice === 'system') return darkSchemeQuery()?.matches ? 'dark' : 'light';
  return platform;
}

export function setTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
}

/** At start: the stored choice and the stored platform default. */
export function bootTheme(): void {
  let platform: Theme = 'light';
  try {
    if ((JSON.parse(storedItem(APPEARANCE_KEY) ?? '{}') as { theme?: unknown }).theme === 'dark') platform = 'dark';
  } catch {
    // A damaged entry: the default.
  }
  setTheme(effectiveTheme(storedChoice(), platform));
}
