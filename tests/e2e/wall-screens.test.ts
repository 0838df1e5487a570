import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { consoleErrors, signInThroughForm, useServerAndBrowser } from './harness.ts';
import { MINUTE, openWall, serverSwitch, type Counts, type Wall, type WallState } from './wall.ts';
import { signIn } from '../server/helpers.ts';

/**
 * Issue 22 in Chromium: a wall screen paired from « Écrans » shows the panels chosen for it and goes back to a pairing
 * code once revoked; with the server gone it raises an amber then a red bar with the data's true age; and a day of
 * rotation and refresh, page clock accelerated, with two outages and a server restart, never blanks it nor grows its
 * heap.
 */
const e2e = useServerAndBrowser();
const server = serverSwitch(e2e);

const CODE = /^[A-Z0-9]{4}-[A-Z0-9]{4}$/;
const ACT = 'À traiter maintenant';
const THREATS = 'Menaces';

async function pairingCode(page: Page): Promise<string> {
  const code = page.locator('[data-pairing-code]');
  await expect
    .poll(async () => ((await code.count()) ? await code.textContent() : ''), { timeout: 15_000 })
    .toMatch(CODE);
  return (await code.textContent())!;
}

/** Approves the wall's code through the API, as the manager, with the act and threats panels. */
async function pairThroughApi(wall: Wall, name: string, rotationS = 30): Promise<void> {
  const code = await pairingCode(wall.page);
  const manager = await signIn(e2e.t.app, 'manager');
  const res = await e2e.t.app.inject({
    method: 'POST',
    url: '/api/displays/',
    headers: { authorization: `Bearer ${manager.access}` },
    payload: { code, name, panels: ['act', 'threats'], rotation_s: rotationS },
  });
  expect(res.statusCode, res.body).toBe(201);
  await expect.poll(() => wall.page.locator('h1.kiosk-title').textContent(), { timeout: 15_000 }).toContain(ACT);
}

/** A wall showing data: a panel's title and its figures. */
function expectShowing(s: WallState, label: string): void {
  expect(s.title, label).toMatch(new RegExp(`^(${ACT}|${THREATS}) — `));
  expect(s.figures.length, `${label}: ${s.body}`).toBeGreaterThan(0);
  expect(
    s.figures.every((f) => /^\d[\d\s\u202f]*$/.test(f)),
    `${label}: ${s.figures.join(', ')}`,
  ).toBe(true);
  expect(s.pairingCode, label).toBeNull();
}

const ALARM = /^Données du (\d{2}\/\d{2}) à (\d{2}:\d{2}) — serveur injoignable depuis (?:(\d+) h )?(\d+) min$/;

/**
 * The bar the wall must show `renderedNow - lastGood` after its last good data (the rule of docs/displays.md: amber
 * past twice the refresh interval, red past 15 minutes), with its age in minutes; `at` is when that data arrived, up
 * to a refresh's duration before `lastGood`, so ages within a second of a threshold may read either way.
 */
function expectAlarm(s: WallState, lastGood: number | null, stamp: string | null, label: string): void {
  if (lastGood === null) {
    expect(s.alarm, label).toBeNull();
    return;
  }
  const age = s.renderedNow - lastGood;
  const levelAt = (ms: number) => (ms > 15 * MINUTE ? 'red' : ms > 2 * MINUTE ? 'amber' : null);
  const levels = new Set([levelAt(age), levelAt(age + 1_000)]);
  expect(levels.has((s.alarm?.level ?? null) as 'red' | 'amber' | null), `${label}: ${JSON.stringify(s.alarm)}`).toBe(
    true,
  );
  if (!s.alarm) return;
  expect(s.alarm.role, label).toBe(s.alarm.level === 'red' ? 'alert' : 'status');
  const m = ALARM.exec(s.alarm.text);
  expect(m, `${label}: ${s.alarm.text}`).not.toBeNull();
  expect(`${m![1]} ${m![2]}`, label).toBe(stamp);
  const minutes = Number(m![3] ?? 0) * 60 + Number(m![4]);
  expect([Math.floor(age / MINUTE), Math.floor((age + 1_000) / MINUTE)], `${label}: ${s.alarm.text}`).toContain(
    minutes,
  );
}

/** « DD/MM HH:MM » of a page time, as the wall writes it. */
function stampOf(page: Page, at: number): Promise<string> {
  return page.evaluate((t) => {
    const f = (o: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat('fr-FR', o).format(t);
    return `${f({ day: '2-digit', month: '2-digit' })} ${f({ hour: '2-digit', minute: '2-digit' })}`;
  }, at);
}

describe('wall screens in Chromium', () => {
  it('pairs a screen from « Écrans », shows its panels in order, and returns to a pairing code once revoked', async () => {
    const wall = await openWall(e2e);
    const errors = consoleErrors(wall.page);
    const code = await pairingCode(wall.page);
    await expect
      .poll(() => wall.page.getByRole('img', { name: `QR code d’appairage de cet écran, code ${code}` }).count())
      .toBe(1);
    const size = await wall.page
      .locator('[data-pairing-code]')
      .evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
    expect(size).toBeGreaterThanOrEqual(48);
    await wall.page.screenshot({ path: '/tmp/vigie-wall-pairing.png' });

    // The manager opens « Écrans » with the code (as the QR code leads), names the screen and picks two panels.
    const adminContext = await e2e.context({ width: 1280, height: 1400 });
    const admin = await signInThroughForm(adminContext, 'manager');
    await admin.goto(`/displays?code=${code}`);
    const form = admin.getByRole('form', { name: 'Appairer un écran' });
    await expect.poll(() => form.getByLabel('Code affiché par l’écran').inputValue()).toBe(code);
    await form.getByLabel('Nom de l’écran').fill('Mur du SOC');
    const panels = form.locator('fieldset', { hasText: 'Panneaux, dans l’ordre du mur' });
    for (const label of [
      'Vulnérabilités',
      'Exploitées (KEV)',
      'Tâches de fond',
      'Actions en retard',
      'Carte des risques',
      'Dernières alertes',
      'Vue d’ensemble',
    ])
      await panels.getByRole('checkbox', { name: label, exact: true }).uncheck();
    // Threats before the act queue first, then moved back below it: the order is the list's.
    await panels.getByRole('button', { name: `Monter : ${THREATS}` }).click();
    await panels.getByRole('button', { name: `Monter : ${THREATS}` }).click();
    await panels.getByRole('button', { name: `Descendre : ${THREATS}` }).click();
    await admin.screenshot({ path: '/tmp/vigie-wall-displays-approve.png', fullPage: true });
    await form.getByRole('button', { name: 'Approuver l’écran' }).click();
    await expect.poll(() => form.textContent()).toContain('Écran « Mur du SOC » appairé');
    const row = admin.getByRole('row', { name: /Mur du SOC/ });
    await expect.poll(() => row.textContent()).toContain(`${ACT}, ${THREATS}`);

    // The wall (polling every 3 s) starts on the first panel, lists both, and rotates to the second.
    await expect
      .poll(() => wall.page.locator('h1.kiosk-title').textContent(), { timeout: 15_000 })
      .toMatch(new RegExp(`^${ACT} — `));
    const shown = await wall.state();
    expectShowing(shown, 'paired');
    expect(await wall.page.getByRole('list', { name: 'Panneaux' }).getByRole('listitem').allTextContents()).toEqual([
      ACT,
      THREATS,
    ]);
    expect(await wall.page.locator('.kiosk-name').textContent()).toBe('Mur du SOC');
    await wall.page.screenshot({ path: '/tmp/vigie-wall-act.png' });
    const rotated = await wall.step(30_000);
    expect(rotated.title).toMatch(new RegExp(`^${THREATS} — `));
    expectShowing(rotated, 'rotated');
    await wall.page.screenshot({ path: '/tmp/vigie-wall-threats.png' });

    // « Écrans » lists it as seen; the manager revokes it, confirming in the dialog.
    await admin.reload();
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toMatch(/Actif/);
    await row.getByRole('button', { name: 'Révoquer : Mur du SOC' }).click();
    const dialog = admin.getByRole('alertdialog', { name: 'Révoquer l’écran « Mur du SOC » ?' });
    await dialog.getByRole('button', { name: 'Révoquer l’écran' }).click();
    await expect.poll(() => row.textContent()).toContain('Révoqué');
    await admin.screenshot({ path: '/tmp/vigie-wall-displays-revoked.png', fullPage: true });

    // Within one refresh (a minute of the wall's clock) the wall is back on a new pairing code.
    await wall.context.clock.runFor(MINUTE);
    const next = await pairingCode(wall.page);
    expect(next).not.toBe(code);
    expect(await wall.page.locator('[data-panel]').count()).toBe(0);
    await wall.page.screenshot({ path: '/tmp/vigie-wall-repairing.png' });
    expect(errors).toEqual([]);
    await adminContext.close();
    await wall.context.close();
  });

  it('server gone: an amber bar past two refreshes, a red one past 15 minutes, with the data’s age; back, no bar', async () => {
    const wall = await openWall(e2e);
    await pairThroughApi(wall, 'Salle de crise');
    let s = await wall.step();
    expectShowing(s, 'live');
    expect(s.alarm).toBeNull();
    const lastGood = s.now;
    const stamp = await stampOf(wall.page, lastGood);
    await server.stop();
    try {
      let amber: WallState | undefined;
      let red: WallState | undefined;
      for (let minute = 1; minute <= 17; minute++) {
        s = await wall.step();
        expectShowing(s, `outage, minute ${minute}`);
        expectAlarm(s, lastGood, stamp, `outage, minute ${minute}`);
        if (minute <= 1) expect(s.alarm).toBeNull();
        if (s.alarm?.level === 'amber') amber ??= s;
        if (s.alarm?.level === 'red') red ??= s;
        if (minute === 5) await wall.page.screenshot({ path: '/tmp/vigie-wall-amber.png' });
      }
      expect(amber, 'an amber bar').toBeDefined();
      expect(red, 'a red bar').toBeDefined();
      expect(s.alarm?.level).toBe('red');
      await wall.page.screenshot({ path: '/tmp/vigie-wall-red.png' });
    } finally {
      await server.start();
    }
    s = await wall.step();
    expectShowing(s, 'back');
    expect(s.alarm).toBeNull();
    expect(s.age).toMatch(/à l’instant|moins d’une minute/);
    await wall.context.close();
  });

  it(
    'soak: 24 hours of rotation and refresh, two outages and a server restart, never blank, right alarms, heap steady',
    { timeout: 300_000 },
    async () => {
      const wall = await openWall(e2e);
      const errors = consoleErrors(wall.page);
      // 45 s a panel: the minute steps find it on one panel, then the other.
      await pairThroughApi(wall, 'Mur d’endurance', 45);
      const cdp = await wall.context.newCDPSession(wall.page);
      const heapMb = async () => {
        await cdp.send('HeapProfiler.collectGarbage');
        await cdp.send('HeapProfiler.collectGarbage');
        return (await cdp.send('Runtime.getHeapUsage')).usedSize / 2 ** 20;
      };
      // The client audit trail's stored events (IndexedDB), reported with the figures.
      const auditStored = () =>
        wall.page.evaluate(
          () =>
            new Promise<number>((resolve) => {
              const open = indexedDB.open('vigie-audit');
              open.onsuccess = () => {
                const count = open.result.transaction('events').objectStore('events').count();
                count.onsuccess = () => {
                  resolve(count.result);
                  open.result.close();
                };
              };
              open.onerror = () => resolve(-1);
            }),
        );
      // Heap, timers and listeners, compared on the same panel (the threats panel's chart holds listeners of its own).
      const measure = async () => {
        for (let i = 0; i < 4 && !(await wall.state()).title.startsWith(ACT); i++) await wall.step(15_000);
        return { heap: await heapMb(), ...(await wall.counts()), audit: await auditStored() };
      };
      const HOURS = 24;
      const down = (minute: number) => (minute > 6 * 60 && minute <= 7 * 60) || (minute > 15 * 60 && minute <= 16 * 60);
      const RESTART = 11 * 60;
      const started = Date.now();
      let up = true;
      let last = await wall.state();
      let lastGood: number | null = null;
      let stamp: string | null = null;
      const titles = new Set<string>();
      const levels = { amber: 0, red: 0 };
      let hour2: ({ heap: number; audit: number } & Counts) | undefined;
      for (let minute = 1; minute <= HOURS * 60; minute++) {
        // The server stops for the outages, and once for a restart (down for one refresh, then listening again).
        const wantUp = !down(minute) && minute !== RESTART;
        if (up && !wantUp) {
          await server.stop();
          up = false;
          lastGood = last.now;
          stamp = await stampOf(wall.page, lastGood);
        } else if (!up && wantUp) {
          await server.start();
          up = true;
          lastGood = null;
        }
        const s = await wall.step();
        const label = `minute ${minute}${up ? '' : ' (server down)'}`;
        expect(s.finished, `${label}: a refresh`).toBeGreaterThan(last.finished);
        expectShowing(s, label);
        expectAlarm(s, lastGood, stamp, label);
        titles.add(s.title.replace(/ — .*/, ''));
        if (s.alarm) levels[s.alarm.level as 'amber' | 'red'] += 1;
        last = s;
        if (minute === 6 * 60 + 30) await wall.page.screenshot({ path: '/tmp/vigie-wall-soak-outage.png' });
        if (minute === 2 * 60) hour2 = await measure();
      }
      const end = await measure();
      await wall.page.screenshot({ path: '/tmp/vigie-wall-soak-end.png' });
      const seconds = Math.round((Date.now() - started) / 1000);
      console.log(
        `wall soak: ${HOURS} h simulated in ${seconds} s (${last.finished} refreshes), heap after hour 2: ` +
          `${hour2?.heap.toFixed(1)} MB, after hour ${HOURS}: ${end.heap.toFixed(1)} MB, growth ` +
          `${(end.heap - (hour2?.heap ?? 0)).toFixed(2)} MB; timers ${hour2?.timers} → ${end.timers}, listeners ` +
          `${hour2?.listeners} → ${end.listeners}; client audit events stored ${hour2?.audit} → ${end.audit}; amber steps ${levels.amber}, red steps ${levels.red}`,
      );
      expect([...titles].sort()).toEqual([THREATS, ACT].sort());
      expect(levels.amber).toBeGreaterThan(0);
      expect(levels.red).toBeGreaterThan(0);
      expect(end.heap - hour2!.heap).toBeLessThan(10);
      const changed = Object.keys({ ...hour2!.held, ...end.held })
        .filter((k) => hour2!.held[k] !== end.held[k])
        .map((k) => `${k} ${hour2!.held[k] ?? 0} → ${end.held[k] ?? 0}`);
      expect(end.timers, `timers ${hour2!.timerKinds.join(', ')} → ${end.timerKinds.join(', ')}`).toBeLessThanOrEqual(
        hour2!.timers,
      );
      expect(end.listeners, `listeners: ${changed.join('; ')}`).toBeLessThanOrEqual(hour2!.listeners);
      expect(errors).toEqual([]);
      await wall.context.close();
    },
  );
});
