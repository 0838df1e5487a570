import { useEffect, useRef, useState } from 'react';
import { DownloadError, streamDownload, type DownloadProgress } from '../../lib/download.ts';
import { EXPORT_PATH, type ListQuery } from './api/vulnerabilities.ts';
import { NUMBER } from './format.ts';

type Format = 'csv' | 'json';

const MIME: Record<Format, string> = { csv: 'text/csv', json: 'application/json' };
const BYTES = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });

export function exportFilename(format: Format, now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `vulnerabilites-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.${format}`;
}

export function exportErrorMessage(format: Format): string {
  return `Impossible d’exporter les vulnérabilités en ${format.toUpperCase()}.`;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${NUMBER.format(bytes)} o`;
  if (bytes < 1024 * 1024) return `${BYTES.format(bytes / 1024)} Ko`;
  return `${BYTES.format(bytes / 1024 / 1024)} Mo`;
}

/** CSV / JSON export of the current filters, streamed with a progress bar and a cancel button. */
export function ExportControls({ query, expectedRows }: { query: ListQuery; expectedRows: number | null }) {
  const [running, setRunning] = useState<{ format: Format; progress: DownloadProgress } | null>(null);
  const [message, setMessage] = useState<{ kind: 'error' | 'done'; text: string } | null>(null);
  const controller = useRef<AbortController | null>(null);

  useEffect(() => () => controller.current?.abort(), []);

  const start = (format: Format) => {
    controller.current?.abort();
    const ac = new AbortController();
    controller.current = ac;
    setMessage(null);
    setRunning({ format, progress: { bytes: 0, rows: 0 } });
    let last = 0;
    streamDownload({
      path: EXPORT_PATH,
      query: { ...query, format },
      filename: exportFilename(format),
      mimeType: MIME[format],
      rowCounting: format === 'csv' ? 'csv' : 'json-array',
      ...(expectedRows !== null ? { expectedRows } : {}),
      signal: ac.signal,
      errorMessage: exportErrorMessage(format),
      timeoutMs: 60_000,
      onProgress: (progress) => {
        // At most ~5 renders a second, whatever the chunk rate.
        const now = Date.now();
        if (now - last < 200 && progress.bytes !== 0) return;
        last = now;
        setRunning({ format, progress });
      },
    }).then(
      (result) => {
        if (controller.current !== ac) return;
        controller.current = null;
        setRunning(null);
        setMessage({
          kind: 'done',
          text: `Export ${format.toUpperCase()} terminé : ${NUMBER.format(result.rows)} ligne${result.rows > 1 ? 's' : ''}, ${formatBytes(result.bytes)}.`,
        });
      },
      (err: unknown) => {
        if (controller.current !== ac) return;
        controller.current = null;
        setRunning(null);
        if (err instanceof DownloadError && err.aborted) setMessage({ kind: 'done', text: 'Export annulé.' });
        else setMessage({ kind: 'error', text: err instanceof Error ? err.message : exportErrorMessage(format) });
      },
    );
  };

  const p = running?.progress;
  const expected = p?.expectedRows;
  return (
    <div className="export-box" role="group" aria-label="Exporter les vulnérabilités filtrées">
      <button type="button" className="btn secondary" disabled={!!running} onClick={() => start('csv')}>
        Exporter en CSV
      </button>
      <button type="button" className="btn secondary" disabled={!!running} onClick={() => start('json')}>
        Exporter en JSON
      </button>
      {running && p && (
        <>
          <progress
            aria-label={`Progression de l’export ${running.format.toUpperCase()}`}
            max={expected && expected > 0 ? expected : undefined}
            value={expected && expected > 0 ? Math.min(p.rows, expected) : undefined}
          />
          <button type="button" className="btn secondary" onClick={() => controller.current?.abort()}>
            Annuler
          </button>
        </>
      )}
      <p className="muted" role="status" aria-live="polite">
        {running && p
          ? `Export en cours : ${NUMBER.format(p.rows)}${expected ? ` / ${NUMBER.format(expected)}` : ''} lignes, ${formatBytes(p.bytes)} reçus`
          : message?.kind === 'done'
            ? message.text
            : ''}
      </p>
      {message?.kind === 'error' && (
        <p className="error" role="alert">
          {message.text}
        </p>
      )}
    </div>
  );
}
