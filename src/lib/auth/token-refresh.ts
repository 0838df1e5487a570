import { effect, untracked, type ReadonlySignal } from '@preact/signals-react';
import { jwtExpiresAt } from './jwt.ts';
import {
  loseSession,
  refreshDueAt,
  refreshTokens,
  refreshTokenUsable,
  session,
  tokensUsable,
  type RefreshTrigger,
  type SessionTokens,
} from './session.ts';

/** After a refresh that got no answer (or a 5xx) while online, the next try. */
export const RETRY_AFTER_FAILURE_MS = 60_000;
/** How long the start waits for its refresh before the first render goes ahead anyway. */
export const START_WAIT_MS = 3_000;
/** setTimeout holds 2^31-1 ms at most; a longer wait is re-armed on the way. */
const MAX_DELAY_MS = 2_147_483_647;

export interface TokenRefreshOptions {
  /** While true (mock API mode), no refresh reaches the network; they resume when it turns false. */
  paused?: ReadonlySignal<boolean>;
  /** Upper bound for `firstCheck`, in ms. */
  startWaitMs?: number;
}

export interface TokenRefresh {
  /** Settles when the start's check is done (a refresh included), or after `startWaitMs`; never rejects. */
  firstCheck: Promise<void>;
  stop(): void;
}

const isOnline = () => typeof navigator === 'undefined' || navigator.onLine !== false;

/**
 * Keeps the session's access token fresh while the app is open: at start (an expired access token, the next
 * morning), at 80 % of its lifetime, and when the page becomes visible or the network returns if it is due by then.
 * Offline it only waits: the session stays, the screens come from the service worker's cache. A refresh token
 * that runs out while waiting ends the session. Every refresh goes through refreshTokens, so the API client's
 * 401 path shares the same single request.
 */
export function startTokenRefresh({ paused, startWaitMs = START_WAIT_MS }: TokenRefreshOptions = {}): TokenRefresh {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let retryNotBefore = 0;
  let stopped = false;

  const clear = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };

  /** The next moment worth a look: the 80 % point (when it can be acted on), or an expiry. */
  const arm = () => {
    clear();
    const s = session.value;
    if (stopped || !s || paused?.value) return;
    const now = Date.now();
    const tokens: SessionTokens = s.tokens;
    const moments = [tokens.expires_at, jwtExpiresAt(tokens.refresh_token)].filter(
      (t): t is number => t !== undefined && t > now,
    );
    if (isOnline() && refreshTokenUsable(tokens.refresh_token, now))
      moments.push(Math.max(refreshDueAt(tokens), retryNotBefore));
    if (moments.length === 0) return;
    const delay = Math.min(Math.max(0, Math.min(...moments) - now), MAX_DELAY_MS);
    timer = setTimeout(() => void check('timer'), delay);
  };

  const check = async (trigger: RefreshTrigger): Promise<void> => {
    clear();
    const s = session.value;
    if (stopped || !s) return;
    const now = Date.now();
    if (!tokensUsable(s.tokens, now)) {
      // Both tokens are spent (a week away, or offline that long): the session is lost.
      await loseSession({ reason: 'refresh_token_expired', trigger });
      return;
    }
    if (paused?.value) return; // mock API mode: nothing may reach the network; the effect re-arms after
    const due = now >= refreshDueAt(s.tokens) && refreshTokenUsable(s.tokens.refresh_token, now);
    if (due && isOnline()) {
      try {
        await refreshTokens({ trigger });
        retryNotBefore = 0;
      } catch {
        // Refused: refreshTokens signed out (the effect clears the timer). No answer or a 5xx: the session stays,
        // the next try comes on 'online', on visibility, or a minute from now.
        retryNotBefore = Date.now() + RETRY_AFTER_FAILURE_MS;
      }
    }
    arm();
  };

  const onOnline = () => void check('online');
  const onVisibility = () => {
    if (document.visibilityState !== 'hidden') void check('visible');
  };
  if (typeof window !== 'undefined') window.addEventListener('online', onOnline);
  if (typeof document !== 'undefined') document.addEventListener('visibilitychange', onVisibility);

  const first = check('start');
  // New tokens (a refresh, another sign-in), sign-out, or the end of mock API mode: look again.
  let initial = true;
  const dispose = effect(() => {
    void session.value;
    const isPaused = paused?.value ?? false;
    if (initial) {
      initial = false;
      return;
    }
    if (isPaused) clear();
    else untracked(() => void check('timer'));
  });

  let waitTimer: ReturnType<typeof setTimeout> | undefined;
  const firstCheck = Promise.race([
    first.catch(() => undefined),
    new Promise<void>((resolve) => (waitTimer = setTimeout(resolve, startWaitMs))),
  ]).finally(() => clearTimeout(waitTimer));

  return {
    firstCheck,
    stop: () => {
      stopped = true;
      clear();
      dispose();
      if (typeof window !== 'undefined') window.removeEventListener('online', onOnline);
      if (typeof document !== 'undefined') document.removeEventListener('visibilitychange', onVisibility);
    },
  };
}
