import { useEffect, useRef, useState } from 'react';
import { DownloadError, streamDownload, type DownloadProgress, type StreamDownloadOptions } from '../lib/download.ts';
import { recordUiAction } from '../lib/audit-log.ts';
import { messageOf } from '../lib/error-message.ts';
import { ProgressBar } from './progress-bar.tsx';
import { formatFileSize } from '../lib/file-size.ts';

export type ExportFormat = 'csv' | 'json';

const MIME: Record<ExportFormat, string> = { csv: 'text/csv', json: 'application/json' };
const NUMBER = new Intl.NumberFormat('fr-FR');

/**
 * CSV / JSON export buttons: the file streamed with a progress bar (determinate when the row count is known), a
 * cancel button, and a French status line. Used by every screen that exports a filtered list.
 */
export function ExportControls({
  label,
  className,
  expectedRows,
  target,
  errorMessage,
  showErrorDetail = false,
}: {
  /** Accessible name of the group, e.g. « Exporter les vulnérabilités filtrées ». */
  label: string;
  className: string;
  expectedRows: number | null;
  /** Where the export of one format comes from and the name it is saved under. */
  target: (format: ExportFormat) => Pick<StreamDownloadOptions, 'path' | 'query' | 'filename'>;
  errorMessage: (format: ExportFormat) => string;
  /** Show the download's own error (e.g. the server's detail) rather than errorMessage. */
  showErrorDetail?: boolean;
}) {
  const [running, setRunning] = useState<{ format: ExportFormat; progress: DownloadProgress } | null>(null);
  const [message, setMessage] = useState<{ kind: 'error' | 'done'; text: string } | null>(null);
  const controller = useRef<AbortController | null>(null);

  useEffect(() => () => controller.current?.abort(), []);

  const start = (format: ExportFormat) => {
    controller.current?.abort();
    const ac = new AbortController();
    controller.current = ac;
    setMessage(null);
    setRunning({ format, progress: { bytes: 0, rows: 0 } });
    let last = 0;
    const exported = target(format);
    // The filters are what was exported; they travel as they are sent to the server.
    recordUiAction('export', {
      export: label,
      format,
      path: exported.path,
      ...(exported.query ? { filters: exported.query } : {}),
    });
    streamDownload({
      ...exported,
      mimeType: MIME[format],
      rowCounting: format === 'csv' ? 'csv' : 'json-array',
      ...(expectedRows !== null ? { expectedRows } : {}),
      signal: ac.signal,
      errorMessage: errorMessage(format),
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
          text: `Export ${format.toUpperCase()} terminé : ${NUMBER.format(result.rows)} ligne${result.rows > 1 ? 's' : ''}, ${formatFileSize(result.bytes)}.`,
        });
      },
      (err: unknown) => {
        if (controller.current !== ac) return;
        controller.current = null;
        setRunning(null);
        if (err instanceof DownloadError && err.aborted) setMessage({ kind: 'done', text: 'Export annulé.' });
        else {
          const detail = showErrorDetail && err instanceof Error ? messageOf(err) : undefined;
          setMessage({ kind: 'error', text: detail ?? errorMessage(format) });
        }
      },
    );
  };

  const p = running?.progress;
  const expected = p?.expectedRows;
  return (
    <div className={className} role="group" aria-label={label}>
      <button type="button" className="btn secondary" disabled={!!running} onClick={() => start('csv')}>
        Exporter en CSV
      </button>
      <button type="button" className="btn secondary" disabled={!!running} onClick={() => start('json')}>
        Exporter en JSON
      </button>
      {running && p && (
        <>
          <ProgressBar
            label={`Progression de l’export ${running.format.toUpperCase()}`}
            value={expected && expected > 0 ? Math.min(100, Math.round((p.rows / expected) * 100)) : null}
          />
          <button type="button" className="btn secondary" onClick={() => controller.current?.abort()}>
            Annuler
          </button>
        </>
      )}
      <p className="muted" role="status" aria-live="polite">
        {running && p
          ? `Export en cours : ${NUMBER.format(p.rows)}${expected ? ` / ${NUMBER.format(expected)}` : ''} lignes, ${formatFileSize(p.bytes)} reçus`
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
