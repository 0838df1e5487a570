import { useEffect, useRef, useState } from 'react';
import { QrCode } from '../../components/qr-code.tsx';
import { ApiError } from '../../lib/api-client.ts';
import { saveDisplayCredential, type DisplayCredential } from '../../lib/display-device.ts';
import { messageOf } from '../../lib/error-message.ts';
import { createPairing, formatPairingCode, pollPairing, type Pairing } from './display-api.ts';
import { useNow } from './kiosk-hooks.ts';
import './kiosk.css';

/** docs/displays.md: a code lives 10 minutes; the screen asks where it stands every 3 s. */
export const PAIRING_LIFETIME_MS = 10 * 60_000;
export const PAIRING_POLL_MS = 3_000;
/** A refused or failed request for a code: again after 5 s, 10 s… 1 min (after a 429, 1 min). */
const ASK_RETRY_BASE_MS = 5_000;
const ASK_RETRY_MAX_MS = 60_000;

/** When the code stops working, by the server's `expires_at` unless this device's clock makes it absurd. */
export function pairingDeadline(expiresAt: string, now: number): number {
  const at = Date.parse(expiresAt);
  return Number.isFinite(at) && at > now && at <= now + PAIRING_LIFETIME_MS + 60_000 ? at : now + PAIRING_LIFETIME_MS;
}

function failureText(err: unknown): string {
  if (err instanceof ApiError && (err.status === 0 || err.status >= 500))
    return 'Serveur injoignable : nouvelle tentative automatique.';
  return messageOf(err);
}

interface PairingView {
  pairing: Pairing;
  deadline: number;
}

/**
 * Asks for a code, polls it every 3 s while the page is visible, asks a new one when it expires (or is used, or
 * unknown), and hands over the credential once approved (stored first). Every timer ends with the screen.
 */
function usePairing(onPaired: (credential: DisplayCredential) => void): {
  view: PairingView | null;
  error: string | null;
} {
  const [view, setView] = useState<PairingView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const paired = useRef(onPaired);
  useEffect(() => {
    paired.current = onPaired;
  });

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let current: PairingView | null = null;
    // Hidden (another tab, the screen off), nobody reads the code: nothing is asked until it shows again, and then
    // the step due is taken at once (a poll, or a new code if this one expired meanwhile).
    let pending: (() => Promise<void>) | null = null;
    const run = () => {
      const step = pending;
      pending = null;
      timer = undefined;
      if (step && !stopped) void step();
    };
    const later = (step: () => Promise<void>, ms: number) => {
      clearTimeout(timer);
      timer = undefined;
      if (stopped) return;
      pending = step;
      if (!document.hidden) timer = setTimeout(run, ms);
    };
    const onVisibility = () => {
      if (stopped) return;
      if (document.hidden) {
        clearTimeout(timer);
        timer = undefined;
      } else if (pending && timer === undefined) run();
    };
    document.addEventListener('visibilitychange', onVisibility);

    async function ask(): Promise<void> {
      current = null;
      try {
        const pairing = await createPairing();
        if (stopped) return;
        failures = 0;
        current = { pairing, deadline: pairingDeadline(pairing.expires_at, Date.now()) };
        setView(current);
        setError(null);
        later(poll, PAIRING_POLL_MS);
      } catch (err) {
        if (stopped) return;
        failures += 1;
        setView(null);
        setError(failureText(err));
        const busy = err instanceof ApiError && err.status === 429;
        later(ask, busy ? ASK_RETRY_MAX_MS : Math.min(ASK_RETRY_MAX_MS, ASK_RETRY_BASE_MS * 2 ** (failures - 1)));
      }
    }

    async function poll(): Promise<void> {
      const asked = current;
      if (!asked || stopped) return;
      if (Date.now() >= asked.deadline) return ask();
      try {
        const answer = await pollPairing(asked.pairing);
        if (stopped) return;
        if (answer.status === 'approved' && answer.token && answer.display) {
          const credential: DisplayCredential = { token: answer.token, display: answer.display };
          // Kept for the next start; unstored (private mode), the wall still runs until the page closes.
          await saveDisplayCredential(credential).catch(() => undefined);
          if (!stopped) paired.current(credential);
          return;
        }
        // Expired, or used without this screen getting the credential: a new code.
        if (answer.status !== 'pending') return ask();
        setError(null);
        later(poll, PAIRING_POLL_MS);
      } catch (err) {
        if (stopped) return;
        // An unknown pairing (the server restarted, or it was purged): a new code.
        if (err instanceof ApiError && err.status === 404) return ask();
        setError(failureText(err));
        later(poll, PAIRING_POLL_MS);
      }
    }

    void ask();
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, []);

  return { view, error };
}

function timeLeft(ms: number): string {
  if (ms <= 0) return 'Code expiré : un nouveau code est demandé…';
  if (ms < 60_000) return 'Valable encore moins d’une minute';
  return `Valable encore ${Math.ceil(Math.min(ms, PAIRING_LIFETIME_MS) / 60_000)} min`;
}

/** What an unpaired screen shows: the code across the room, its QR code, and how long it stays valid. */
export function PairingScreen({ onPaired }: { onPaired: (credential: DisplayCredential) => void }) {
  const { view, error } = usePairing(onPaired);
  const now = useNow(1_000);
  const code = view ? formatPairingCode(view.pairing.code) : null;
  const link = code ? `${window.location.origin}/displays?code=${encodeURIComponent(code)}` : null;
  return (
    <div className="kiosk theme-dark kiosk-text-normal kiosk-pairing" data-theme="dark">
      <header className="kiosk-header">
        <span className="kiosk-brand">
          <img src="/favicon.svg" alt="" width="40" height="40" />
          Vigie
        </span>
        <h1 className="kiosk-title">Appairer cet écran</h1>
      </header>
      <main className="kiosk-pairing-body">
        {code && link && view ? (
          <>
            <div className="kiosk-pairing-text">
              <p>
                Sur un poste connecté à Vigie, ouvrez <strong>Écrans</strong> et saisissez ce code, ou scannez le QR
                code :
              </p>
              <p className="kiosk-pairing-code" data-pairing-code="">
                {code}
              </p>
              <p className="kiosk-pairing-left">{timeLeft(view.deadline - now)}</p>
              {error && (
                <p className="kiosk-pairing-error" role="status">
                  {error}
                </p>
              )}
            </div>
            <div className="kiosk-pairing-qr">
              <QrCode value={link} label={`QR code d’appairage de cet écran, code ${code}`} size={360} />
            </div>
          </>
        ) : (
          <p className="kiosk-unavailable" role="status">
            {error ?? 'Demande d’un code d’appairage…'}
          </p>
        )}
      </main>
    </div>
  );
}
