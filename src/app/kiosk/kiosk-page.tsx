import { useSearch } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { online } from '../connectivity.ts';
import { IDLE_CURSOR_MS, PANEL_TITLES, parseKioskConfig } from './kiosk-config.ts';
import { useFullscreen, useIdle, useKioskFeed, useNow, useRotation, useWakeLock } from './kiosk-hooks.ts';
import { KioskPanel } from './kiosk-panels.tsx';
import './kiosk.css';
import { dateFormat } from '../../lib/format.ts';

const CLOCK = dateFormat({ hour: '2-digit', minute: '2-digit' });
const DAY = dateFormat({ weekday: 'long', day: 'numeric', month: 'long' });

/**
 * Wall-screen mode for SOC rooms (outside the layout): dark, large type, panels rotating every N seconds, data
 * refreshed in the background and kept when the backend is away. /kiosk?panels=vulnerabilities,threats&interval=30
 */
export default function KioskPage() {
  useSignals();
  const search = useSearch();
  const { panels, intervalS } = parseKioskConfig(search);
  const feed = useKioskFeed(panels);
  const index = useRotation(panels.length, intervalS);
  const now = useNow(15_000);
  const idle = useIdle(IDLE_CURSOR_MS);
  const fullscreen = useFullscreen();
  useWakeLock();

  const current = panels[index] ?? panels[0] ?? 'vulnerabilities';
  const offline = !online.value;
  const backendDown = !offline && feed.failures > 0;

  return (
    <div className={`kiosk theme-dark${idle ? ' kiosk-idle' : ''}`} data-theme="dark">
      <header className="kiosk-header">
        <span className="kiosk-brand">
          <img src="/favicon.svg" alt="" width="40" height="40" />
          Vigie
        </span>
        <h1 className="kiosk-title">{PANEL_TITLES[current]}</h1>
        <div className="kiosk-clock">
          <time dateTime={new Date(now).toISOString()}>{CLOCK.format(now)}</time>
          <span>{DAY.format(now)}</span>
        </div>
        <div className="kiosk-controls">
          {fullscreen.available && (
            <button type="button" className="kiosk-button" onClick={fullscreen.toggle}>
              {fullscreen.active ? 'Quitter le plein écran' : 'Plein écran'}
            </button>
          )}
          <a className="kiosk-button" href="/dashboard">
            Quitter le kiosque
          </a>
        </div>
      </header>

      {(offline || backendDown) && (
        <div className="kiosk-banner" role="status">
          {offline
            ? 'Hors ligne — affichage des dernières données reçues. Reprise automatique au retour du réseau.'
            : 'Serveur injoignable — affichage des dernières données reçues. Nouvelle tentative automatique.'}
        </div>
      )}

      <main className="kiosk-panel" aria-label={PANEL_TITLES[current]}>
        <KioskPanel key={current} id={current} state={feed.panels[current]} now={now} />
      </main>

      {panels.length > 1 && (
        <footer className="kiosk-footer">
          <ol className="kiosk-steps" aria-label="Panneaux">
            {panels.map((p, i) => (
              <li key={p} aria-current={i === index ? 'step' : undefined}>
                {PANEL_TITLES[p]}
              </li>
            ))}
          </ol>
          <div className="kiosk-rotation" aria-hidden="true">
            <span key={index} style={{ animationDuration: `${intervalS}s` }} />
          </div>
        </footer>
      )}
    </div>
  );
}
