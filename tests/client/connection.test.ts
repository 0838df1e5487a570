import { afterEach, describe, expect, it } from 'vitest';
import { apiRequest, ApiError, setClientEnvironment } from '../../src/lib/api-client.ts';
import { localDataMode, watchConnection } from '../../src/app/modes.ts';
import { resetClientState } from './harness.ts';

afterEach(async () => {
  localDataMode.value = false;
  await resetClientState();
});

describe('no response from the backend (spec §8)', () => {
  it('tests the connection and switches to local-data mode when the backend is down', async () => {
    let noticed = 0;
    watchConnection(() => noticed++);
    setClientEnvironment({ baseUrl: () => 'http://127.0.0.1:1' });
    const err = await apiRequest('/projects/').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(0);
    expect((err as ApiError).kind).toBe('network');
    expect((err as ApiError).message).toBe('Backend connection failed');
    expect(noticed).toBe(1);
    await expect.poll(() => localDataMode.value).toBe(true);
  });
});
