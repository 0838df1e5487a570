import type { DataOrigin } from '../lib/api-client.ts';
import { useSamplePresence } from '../lib/sample-presence.ts';
import { dateFormat } from '../lib/format.ts';

const FORMAT = dateFormat({
  day: '2-digit',
  month: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});

/** '22/11 à 14:05' */
export function formatStoredAt(ms: number): string {
  const parts = Object.fromEntries(FORMAT.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return `${parts.day}/${parts.month} à ${parts.hour}:${parts.minute}`;
}

/** The words that tell sample or stored data apart from live data; null for live data. */
export function originLabel(origin: DataOrigin | undefined, online: boolean): string | null {
  if (!origin || origin.source === 'network') return null;
  if (origin.source === 'sample') return 'Données d’exemple';
  const when = origin.storedAt ? ` du ${formatStoredAt(origin.storedAt)}` : '';
  return online ? `Données en cache${when}` : `Hors ligne — données${when}`;
}

/**
 * Why a write form stays off for data that is not live, in the words shown beside it: a sample is nobody's data,
 * a kept copy (offline, or a server that did not answer) may be out of date. Null for live data.
 */
export function readOnlyNote(origin: DataOrigin | undefined): string | null {
  if (!origin || origin.source === 'network') return null;
  if (origin.source === 'sample') return 'Données d’exemple : modification impossible.';
  return 'Hors ligne ou serveur injoignable : ces données sont une copie conservée, modification impossible pour le moment.';
}

/** Shown where the data appears, so nobody takes sample or stale data for live data. */
export function DataOriginNote({ origin }: { origin: DataOrigin | undefined }) {
  useSamplePresence(origin?.source === 'sample');
  const label = originLabel(origin, typeof navigator === 'undefined' ? true : navigator.onLine);
  if (!label) return null;
  return (
    <p className={`data-origin ${origin?.source ?? ''}`} role="note">
      {label}
    </p>
  );
}

/**
 * A part of a page loaded on its own (an asset's findings beside the asset): its note, when its origin differs from
 * the page's. A live asset over a kept copy of its findings, or the other way round, must not read as one.
 */
export function PartOriginNote({ origin, page }: { origin: DataOrigin | undefined; page: DataOrigin | undefined }) {
  const same = (origin?.source ?? 'network') === (page?.source ?? 'network') && origin?.storedAt === page?.storedAt;
  return same ? null : <DataOriginNote origin={origin ?? { source: 'network' }} />;
}
