import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError } from '../../lib/api-client.ts';
import {
  forgetDisplayCredential,
  loadDisplayCredential,
  saveDisplayCredential,
  type Display,
  type DisplayCredential,
} from '../../lib/display-device.ts';
import { foreignDisplayPartitions } from '../../../sw/policy.ts';
import { auditAsDevice } from '../audit.ts';
import { displayConfig } from './kiosk-config.ts';
import { LOADERS } from './kiosk-data.ts';
import { fetchDisplayMe } from './display-api.ts';
import { loadSlides, useKioskFeed, type CycleResults } from './kiosk-hooks.ts';
import { PairingScreen } from './kiosk-pairing.tsx';
import { KioskWall, type Slide } from './kiosk-wall.tsx';

/** A 401 in device mode: the screen was revoked (or is unknown, or its credential expired). */
const revoked = (err: unknown) => err instanceof ApiError && err.status === 401;

/** Forgets the credential and every answer kept for a display on this device. */
async function forgetDevice(): Promise<void> {
  await forgetDisplayCredential().catch(() => undefined);
  if (typeof caches === 'undefined') return;
  const names = await caches.keys().catch(() => [] as string[]);
  await Promise.all(foreignDisplayPartitions(names).map((n) => caches.delete(n).catch(() => false)));
}

interface DeviceSlide extends Slide {
  tenantId: string | undefined;
}

/** Each panel in each of the display's tenants, tenant by tenant (one tenant: its panels, named after it). */
function slidesOf(display: Display): DeviceSlide[] {
  const { panels } = displayConfig(display);
  const tenants: { id: string | undefined; name: string | undefined }[] =
    Array.isArray(display.tenants) && display.tenants.length > 0
      ? display.tenants
      : [{ id: undefined, name: undefined }];
  return tenants.flatMap((t) =>
    panels.map((panel) => ({ key: `${t.id ?? ''}|${panel}`, panel, tenantId: t.id, tenantName: t.name })),
  );
}

/**
 * A paired screen's wall: at each refresh its own record first (`GET /api/displays/me/`: configuration applied,
 * renewed credential stored; failing, the last configuration stays), then every panel of every tenant with its
 * credential. Any 401 ends it: the credential is forgotten and the pairing code comes back.
 */
function DeviceWall({ credential, onRevoked }: { credential: DisplayCredential; onRevoked: () => void }) {
  const [display, setDisplay] = useState(credential.display);
  const kept = useRef(credential);
  const revokedRef = useRef(onRevoked);
  useEffect(() => {
    revokedRef.current = onRevoked;
  });

  const cycle = useCallback(async (): Promise<CycleResults> => {
    let current = kept.current;
    try {
      const tenants = Array.isArray(current.display.tenants) ? current.display.tenants : [];
      const me = await fetchDisplayMe({ token: current.token, tenantId: tenants[0]?.id });
      current = { token: me.renewed_token || current.token, display: me.display };
    } catch (err) {
      if (revoked(err)) {
        revokedRef.current();
        return null;
      }
      // Offline or the server failing: the last configuration stays.
    }
    const slides = slidesOf(current.display);
    const token = current.token;
    const results = await loadSlides(slides, (panel, i) => LOADERS[panel]({ token, tenantId: slides[i]!.tenantId }));
    if (Object.values(results).some((r) => r.status === 'rejected' && revoked(r.reason))) {
      revokedRef.current();
      return null;
    }
    if (JSON.stringify(current) !== JSON.stringify(kept.current)) {
      kept.current = current;
      // The configuration applies with the data read under it; kept for a start without the server.
      setDisplay(current.display);
      await saveDisplayCredential(current).catch(() => undefined);
    }
    return results;
  }, []);

  // Its failed reads (api_error events) reach its tenant's audit trail under its own credential.
  useEffect(() => {
    auditAsDevice(() => ({ token: kept.current.token, tenantId: kept.current.display.tenants?.[0]?.id }));
    return () => auditAsDevice(null);
  }, []);

  const feed = useKioskFeed(cycle, String(credential.display.id));
  const slides = useMemo(() => slidesOf(display), [display]);
  const config = useMemo(() => displayConfig(display), [display]);
  return <KioskWall slides={slides} feed={feed} config={config} name={display.name} />;
}

/** `/kiosk` without a session: the wall on the stored device credential, else the pairing screen. */
export function DeviceKiosk() {
  const [credential, setCredential] = useState<DisplayCredential | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void loadDisplayCredential().then((c) => {
      if (live) setCredential(c);
    });
    return () => {
      live = false;
    };
  }, []);
  const onRevoked = useCallback(() => {
    setCredential(null);
    void forgetDevice();
  }, []);

  if (credential === undefined)
    return (
      <div className="kiosk theme-dark kiosk-text-normal" data-theme="dark">
        <p className="kiosk-unavailable" role="status">
          Chargement…
        </p>
      </div>
    );
  if (credential === null) return <PairingScreen onPaired={setCredential} />;
  return <DeviceWall key={String(credential.display.id)} credential={credential} onRevoked={onRevoked} />;
}
