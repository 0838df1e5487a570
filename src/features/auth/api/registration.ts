import { apiRequest, TIMEOUTS } from '../../../lib/api-client.ts';

/**
 * Whether the platform's policy lets anyone create an account (GET /register/, public); false when unknown (offline,
 * an older backend). Its own module: the sign-in page, in the first download, asks it.
 */
export async function registrationOpen(): Promise<boolean> {
  const answer = await apiRequest<{ allowed?: unknown }>('/register/', {
    anonymous: true,
    timeoutMs: TIMEOUTS.auth,
  }).catch(() => undefined);
  return answer?.allowed === true;
}
