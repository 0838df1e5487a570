import { dateFormat } from '../../lib/format.ts';
import { alarmLevel, IDLE_CURSOR_MS, PANEL_TITLES, type KioskConfig, type PanelId } from './kiosk-config.ts';
import {
  useFullscreen,
  useIdle,
  useNow,
  useRotation,
  useWakeLock,
  type FeedState,
  type PanelState,
} from './kiosk-hooks.ts';
import { dataTime, KioskPanel } from './kiosk-panels.tsx';
import './kiosk.css';

const CLOCK = dateFormat({ hour: '2-digit', minute: '2-digit' });
const DAY = dateFormat({ weekday: 'long', day: 'numeric', month: 'long' });
const DAY_MONTH = dateFormat({ day: '2-digit', month: '2-digit' });

/** One screenful: a panel, in a tenant for a paired screen that shows several. */
export interface Slide {
  key: string;
  panel: PanelId;
  /** The tenant's name, in the title (paired screens). */
  tenantName?: string | undefined;
}

/** The tenants a paired screen goes through, in order (none for a person's wall). */
function tenantsOf(slides: Slide[]): string[] {
  const names = slides.map((s) => s.tenantName).filter((n): n is string => !!n);
  return names.filter((n, i) => names.indexOf(n) === i);
}

export function slideTitle(slide: Slide): string {
  return slide.tenantName ? `${PANEL_TITLES[slide.panel]} — ${slide.tenantName}` : PANEL_TITLES[slide.panel];
}

/** '12 min', '1 h 05 min' */
export function minutesText(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** Whether a failure says the server could not be reached (no answer, timeout, 5xx), rather than a refusal. */
const unreachable = (status: number | undefined) => status === undefined || status === 0 || status >= 500;

export interface Alarm {
  level: 'amber' | 'red';
  text: string;
}

/**
 * The full-width bar over stale data (docs/displays.md): past twice the refresh interval since the data shown was
 * made, amber « Données du 24/11 à 14:05 — serveur injoignable depuis 12 min »; past 15 minutes, red. Nothing while
 * fresh, nor over sample data (it is marked « exemple » on its own). A slide that never got data says so, counted
 * from the first refresh.
 */
export function alarmOf(state: PanelState | undefined, now: number, startedAt: number): Alarm | null {
  const at = dataTime(state);
  if (state?.origin?.source === 'sample') return null;
  const reason = unreachable(state?.error ? state.errorStatus : undefined)
    ? 'serveur injoignable'
    : 'mise à jour impossible';
  if (at === undefined) {
    if (state?.data !== undefined || !state?.error) return null;
    const level = alarmLevel(now - startedAt);
    return level && { level, text: `Aucune donnée reçue — ${reason} depuis ${minutesText(now - startedAt)}` };
  }
  const level = alarmLevel(now - at);
  return (
    level && {
      level,
      text: `Données du ${DAY_MONTH.format(at)} à ${CLOCK.format(at)} — ${reason} depuis ${minutesText(now - at)}`,
    }
  );
}

export interface WallProps {
  slides: Slide[];
  feed: FeedState;
  config: KioskConfig;
  /** The paired screen's name, beside the brand. */
  name?: string | undefined;
  /** Signed-in use: a way back to the app. */
  exitHref?: string | undefined;
}

/**
 * The wall itself (outside the layout): large type, panels rotating every N seconds, the data's age on each and a
 * full-width bar once it is stale. Theme and text size are classes on the root.
 */
export function KioskWall({ slides, feed, config, name, exitHref }: WallProps) {
  const index = useRotation(slides.length, config.intervalS);
  const now = useNow(15_000);
  const idle = useIdle(IDLE_CURSOR_MS);
  const fullscreen = useFullscreen();
  useWakeLock();

  const current = slides[index] ?? slides[0];
  const state = current ? feed.panels[current.key] : undefined;
  const alarm = alarmOf(state, now, feed.startedAt);
  const title = current ? slideTitle(current) : '';
  const tenants = tenantsOf(slides);

  return (
    <div
      className={`kiosk theme-${config.theme} kiosk-text-${config.textSize}${idle ? ' kiosk-idle' : ''}`}
      data-theme={config.theme}
    >
      <header className="kiosk-header">
        <span className="kiosk-brand">
          <img src="/favicon.svg" alt="" width="40" height="40" />
          Vigie
          {name && <span className="kiosk-name">{name}</span>}
        </span>
        <h1 className="kiosk-title">{title}</h1>
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
          {exitHref && (
            <a className="kiosk-button" href={exitHref}>
              Quitter le kiosque
            </a>
          )}
        </div>
      </header>

      {alarm && (
        <div
          className={`kiosk-alarm kiosk-alarm-${alarm.level}`}
          role={alarm.level === 'red' ? 'alert' : 'status'}
          data-alarm={alarm.level}
        >
          {alarm.text}
        </div>
      )}

      {current && (
        <main className="kiosk-panel" aria-label={title}>
          <KioskPanel key={current.key} id={current.panel} state={state} now={now} theme={config.theme} />
        </main>
      )}

      {slides.length > 1 && current && (
        <footer className="kiosk-footer">
          {/* Several tenants: where the rotation is among them, then among the current one's panels. */}
          <div className="kiosk-footer-row">
            {tenants.length > 1 && (
              <ol className="kiosk-steps kiosk-tenants" aria-label="Organisations">
                {tenants.map((t) => (
                  <li key={t} aria-current={t === current.tenantName ? 'step' : undefined}>
                    {t}
                  </li>
                ))}
              </ol>
            )}
            <ol className="kiosk-steps" aria-label="Panneaux">
              {slides
                .filter((s) => s.tenantName === current.tenantName)
                .map((s) => (
                  <li key={s.key} aria-current={s.key === current.key ? 'step' : undefined}>
                    {PANEL_TITLES[s.panel]}
                  </li>
                ))}
            </ol>
          </div>
          <div className="kiosk-rotation" aria-hidden="true">
            <span key={index} style={{ animationDuration: `${config.intervalS}s` }} />
          </div>
        </footer>
      )}
    </div>
  );
}
