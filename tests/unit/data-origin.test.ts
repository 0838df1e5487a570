import { describe, expect, it } from 'vitest';
import { formatStoredAt, originLabel } from '../../src/components/data-origin-note.tsx';
import { originOf } from '../../src/lib/api-client.ts';

describe('data origin marks', () => {
  it('reads the service worker headers', () => {
    expect(originOf(new Headers({ 'X-Vigie-Source': 'sample' }))).toEqual({ source: 'sample' });
    expect(originOf(new Headers({ 'X-Vigie-Source': 'cache', 'X-Vigie-Stored-At': '1795350300000' }))).toEqual({
      source: 'cache',
      storedAt: 1795350300000,
    });
    expect(originOf(new Headers())).toEqual({ source: 'network' });
  });

  it('labels sample and stored data in French, and live data not at all', () => {
    const at = new Date(2026, 10, 22, 14, 5).getTime();
    expect(formatStoredAt(at)).toBe('22/11 à 14:05');
    expect(originLabel({ source: 'sample' }, true)).toBe('Données d’exemple');
    expect(originLabel({ source: 'cache', storedAt: at }, false)).toBe('Hors ligne — données du 22/11 à 14:05');
    expect(originLabel({ source: 'cache', storedAt: at }, true)).toBe('Données en cache du 22/11 à 14:05');
    expect(originLabel({ source: 'network' }, false)).toBeNull();
    expect(originLabel(undefined, true)).toBeNull();
  });
});
