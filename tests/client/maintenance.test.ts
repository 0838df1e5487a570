import { afterEach, describe, expect, it } from 'vitest';
import { signIn, TEST_PASSWORD } from '../server/helpers.ts';
import { useVigieClient } from './harness.ts';
import { apiRequest, ApiError, MESSAGES } from '../../src/lib/api-client.ts';
import { login } from '../../src/features/auth/api/login.ts';
import { maintenanceNotice } from '../../src/lib/maintenance.ts';

const { t } = useVigieClient(undefined, { runJobs: false });
afterEach(() => {
  maintenanceNotice.value = null;
});

async function setMaintenance(on: boolean) {
  const admin = await signIn(t.app, 'admin');
  const res = await t.app.inject({
    method: 'PATCH',
    url: '/api/system/settings/',
    headers: { authorization: `Bearer ${admin.access}` },
    payload: { maintenance_mode: on },
  });
  expect(res.statusCode).toBe(200);
}

describe('maintenance mode seen from the client', () => {
  it('gives the server’s French notice instead of « Backend connection failed », and clears it once the API answers', async () => {
    await login({ username: 'analyste', password: TEST_PASSWORD });
    await setMaintenance(true);
    try {
      const err = await apiRequest('/assets/').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(503);
      expect((err as ApiError).message).toBe(
        'Maintenance en cours : l’application est momentanément indisponible. Réessayez plus tard.',
      );
      expect((err as ApiError).message).not.toBe(MESSAGES.backendDown);
      expect(maintenanceNotice.value).toBe((err as ApiError).message);
    } finally {
      await setMaintenance(false);
    }
    await apiRequest('/assets/');
    expect(maintenanceNotice.value).toBeNull();
  });
});
