import { useCallback, useMemo } from 'react';
import { useSearch } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { isAuthenticated } from '../../lib/auth/session.ts';
import { parseKioskConfig } from './kiosk-config.ts';
import { LOADERS } from './kiosk-data.ts';
import { loadSlides, useKioskFeed } from './kiosk-hooks.ts';
import { KioskWall, type Slide } from './kiosk-wall.tsx';
import { DeviceKiosk } from './kiosk-device.tsx';

/**
 * Wall-screen mode for SOC rooms (outside the layout). Signed in, a person's wall set by the URL
 * (/kiosk?panels=vulnerabilities,act,threats&interval=30&theme=light&text=large); without a session, a paired
 * screen on its own credential, or its pairing code (docs/displays.md).
 */
export default function KioskPage() {
  useSignals();
  return isAuthenticated.value ? <SignedInKiosk /> : <DeviceKiosk />;
}

function SignedInKiosk() {
  const search = useSearch();
  const config = useMemo(() => parseKioskConfig(search), [search]);
  const key = config.panels.join(',');
  const slides = useMemo<Slide[]>(() => config.panels.map((panel) => ({ key: panel, panel })), [config.panels]);
  const cycle = useCallback(() => loadSlides(slides, (panel) => LOADERS[panel]()), [slides]);
  const feed = useKioskFeed(cycle, key);
  return <KioskWall slides={slides} feed={feed} config={config} exitHref="/dashboard" />;
}
