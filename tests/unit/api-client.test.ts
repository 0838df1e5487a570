import { describe, expect, it } from 'vitest';
import { normalizeApiPath } from '../../src/lib/api-client.ts';

describe('normalizeApiPath', () => {
  it.each([
    ['/users/me/', '/api/users/me/'],
    ['users/me/', '/api/users/me/'],
    ['/api/users/me/', '/api/users/me/'],
    ['/api/api/users/me/', '/api/users/me/'],
    ['/api//api//users//me/', '/api/users/me/'],
    ['//health/', '/api/health/'],
    ['/api', '/api'],
    ['/apiary/', '/api/apiary/'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeApiPath(input)).toBe(expected);
  });
});
