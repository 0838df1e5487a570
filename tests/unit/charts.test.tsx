import { describe, expect, it } from 'vitest';
import { mountEachTest } from './support/mount.tsx';
import { HorizontalBars, SeverityDonut, TrendLine } from '../../src/components/charts/index.tsx';

const view = mountEachTest();
const n = (v: number) => new Intl.NumberFormat('fr-FR').format(v);

function rows(): string[][] {
  return [...view.container.querySelectorAll('table tr')].map((tr) =>
    [...tr.querySelectorAll('th, td')].map((c) => c.textContent ?? ''),
  );
}

describe('charts without canvas (happy-dom)', () => {
  it('SeverityDonut shows every severity count and the total in its table, and no canvas', () => {
    view.render(
      <SeverityDonut distribution={{ critical: 14, high: 52, medium: 97, low: 1254, info: 0 }} title="Gravité" />,
    );
    expect(view.container.querySelector('canvas')).toBeNull();
    expect(view.container.querySelector('figcaption')!.textContent).toBe('Gravité');
    expect(rows()).toEqual([
      ['Gravité', 'Nombre'],
      ['Critique', '14'],
      ['Élevée', '52'],
      ['Moyenne', '97'],
      ['Faible', n(1254)],
      ['Info', '0'],
      ['Total', n(1417)],
    ]);
    expect(view.container.querySelector('.chart-fallback')).not.toBeNull();
  });

  it('TrendLine lists each day with its count and updates when the points change', () => {
    const label = 'Nouvelles vulnérabilités par jour';
    view.render(
      <TrendLine
        label={label}
        points={[
          { date: '2026-11-11', count: 3 },
          { date: '2026-11-12', count: 1500 },
        ]}
      />,
    );
    expect(view.container.querySelector('caption')!.textContent).toBe(label);
    expect(rows().slice(1)).toEqual([
      ['11 nov. 2026', '3'],
      ['12 nov. 2026', n(1500)],
    ]);
    view.render(<TrendLine label={label} points={[{ date: '2026-11-13', count: 7 }]} size="large" />);
    expect(rows().slice(1)).toEqual([['13 nov. 2026', '7']]);
    expect(view.container.querySelector('figure')!.className).toContain('chart-large');
  });

  it('HorizontalBars lists labels and values in order', () => {
    view.render(
      <HorizontalBars
        label="Actifs les plus touchés"
        items={[
          { label: 'srv-app-erp-02', value: 23 },
          { label: 'fw-paris-01', value: 17 },
        ]}
        theme="dark"
      />,
    );
    expect(rows().slice(1)).toEqual([
      ['srv-app-erp-02', '23'],
      ['fw-paris-01', '17'],
    ]);
    expect(view.container.querySelector('figure')!.getAttribute('data-theme')).toBe('dark');
  });
});
