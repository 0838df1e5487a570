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

  it('SeverityDonut gives findings’ « Non évaluée » its own row after Info, and threats none', () => {
    view.render(
      <SeverityDonut distribution={{ critical: 1, high: 2, medium: 3, low: 4, info: 5, unrated: 6 }} title="Gravité" />,
    );
    expect(rows().slice(1)).toEqual([
      ['Critique', '1'],
      ['Élevée', '2'],
      ['Moyenne', '3'],
      ['Faible', '4'],
      ['Info', '5'],
      ['Non évaluée', '6'],
      ['Total', '21'],
    ]);
    expect(view.container.querySelector('[data-severity="unrated"] .sev-dot.sev-unrated')).not.toBeNull();
    // Zero is still a count: the row stays.
    view.render(<SeverityDonut distribution={{ critical: 1, high: 0, medium: 0, low: 0, info: 0, unrated: 0 }} />);
    expect(rows().at(-2)).toEqual(['Non évaluée', '0']);
    // A threat's distribution knows no « Non évaluée ».
    view.render(<SeverityDonut distribution={{ critical: 1, high: 0, medium: 0, low: 0, info: 0 }} />);
    expect(view.container.querySelector('[data-severity="unrated"]')).toBeNull();
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
