import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appearance, chooseTheme, refreshAppearance, themeChoice } from '../../src/lib/appearance.ts';
import { bootTheme } from '../../src/lib/theme-boot.ts';
import { displayTimeZone, formatDateTime, setDisplayTimeZone } from '../../src/lib/format.ts';

const root = () => document.documentElement;
let deviceDark = false;

beforeEach(() => {
  localStorage.clear();
  deviceDark = false;
  vi.stubGlobal('matchMedia', (q: string) => ({
    matches: q.includes('dark') && deviceDark,
    addEventListener: () => {},
    removeEventListener: () => {},
  }));
  appearance.value = { app_name: 'Vigie', theme: 'light' };
  themeChoice.value = 'platform';
  document.title = 'Vigie';
  delete root().dataset.theme;
});
afterEach(() => {
  vi.unstubAllGlobals();
  setDisplayTimeZone(undefined);
});

const answer = (body: unknown, init: ResponseInit = {}) =>
  vi.fn(async () => new Response(JSON.stringify(body), { status: 200, ...init }));

describe('theme and name', () => {
  it('starts with the stored choice, else the stored platform default, before anything renders', () => {
    bootTheme();
    expect(root().dataset.theme).toBe('light');
    localStorage.setItem('vigie.appearance', JSON.stringify({ app_name: 'SOC', theme: 'dark' }));
    bootTheme();
    expect(root().dataset.theme).toBe('dark');
    localStorage.setItem('vigie.theme', 'light');
    bootTheme();
    expect(root().dataset.theme).toBe('light');
    localStorage.setItem('vigie.appearance', '{broken');
    localStorage.setItem('vigie.theme', 'system');
    deviceDark = true;
    bootTheme();
    expect(root().dataset.theme).toBe('dark');
  });

  it('keeps the device’s choice and applies it at once; « system » follows the device', () => {
    chooseTheme('dark');
    expect(root().dataset.theme).toBe('dark');
    expect(root().style.colorScheme).toBe('dark');
    expect(localStorage.getItem('vigie.theme')).toBe('dark');
    chooseTheme('system');
    expect(root().dataset.theme).toBe('light');
    deviceDark = true;
    chooseTheme('system');
    expect(root().dataset.theme).toBe('dark');
    chooseTheme('platform');
    expect(root().dataset.theme).toBe('light');
  });

  it('reads the platform’s name and default theme, keeps them for the next start, and names the tab', async () => {
    const fetcher = answer({ app_name: 'Vigie SOC', theme: 'dark', timezone: 'UTC', language: 'fr' });
    await refreshAppearance(fetcher);
    expect(fetcher).toHaveBeenCalledWith('/api/system/appearance/', expect.anything());
    expect(appearance.value).toEqual({ app_name: 'Vigie SOC', theme: 'dark', timezone: 'UTC' });
    expect(root().dataset.theme).toBe('dark');
    expect(document.title).toBe('Vigie SOC');
    expect(JSON.parse(localStorage.getItem('vigie.appearance')!)).toEqual({
      app_name: 'Vigie SOC',
      theme: 'dark',
      timezone: 'UTC',
    });
    // The device's own choice wins over the platform's default.
    chooseTheme('light');
    await refreshAppearance(fetcher);
    expect(root().dataset.theme).toBe('light');
  });

  it('keeps what it had when the answer is a sample, an error or of another shape', async () => {
    await refreshAppearance(
      answer({ app_name: 'Exemple', theme: 'dark' }, { headers: { 'X-Vigie-Source': 'sample' } }),
    );
    await refreshAppearance(answer({ detail: 'Introuvable' }, { status: 404 }));
    await refreshAppearance(answer({ app_name: '', theme: 'pink' }));
    await refreshAppearance(vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))));
    expect(appearance.value).toEqual({ app_name: 'Vigie', theme: 'light' });
    expect(localStorage.getItem('vigie.appearance')).toBeNull();
  });

  it('shows every date in the platform’s time zone once it is known', async () => {
    const at = '2026-11-28T14:05:00Z';
    await refreshAppearance(answer({ app_name: 'Vigie', theme: 'light', timezone: 'Asia/Tokyo', language: 'fr' }));
    expect(displayTimeZone()).toBe('Asia/Tokyo');
    expect(formatDateTime(at)).toBe('28 nov. 2026 à 23:05');
    await refreshAppearance(answer({ app_name: 'Vigie', theme: 'light', timezone: 'America/New_York' }));
    expect(formatDateTime(at)).toBe('28 nov. 2026 à 09:05');
    // An unknown zone is the device's, never an exception.
    setDisplayTimeZone('Mars/Olympus');
    expect(displayTimeZone()).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});
