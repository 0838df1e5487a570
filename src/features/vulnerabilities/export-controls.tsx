import {
  ExportControls as SharedExportControls,
  type ExportFormat as Format,
} from '../../components/export-controls.tsx';
import { EXPORT_PATH, type ListQuery } from './api/vulnerabilities.ts';

export function exportFilename(format: Format, now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `vulnerabilites-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.${format}`;
}

export function exportErrorMessage(format: Format): string {
  return `Impossible d’exporter les vulnérabilités en ${format.toUpperCase()}.`;
}

/** CSV / JSON export of the current filters, streamed with a progress bar and a cancel button. */
export function ExportControls({ query, expectedRows }: { query: ListQuery; expectedRows: number | null }) {
  return (
    <SharedExportControls
      className="export-box"
      label="Exporter les vulnérabilités filtrées"
      expectedRows={expectedRows}
      target={(format) => ({ path: EXPORT_PATH, query: { ...query, format }, filename: exportFilename(format) })}
      errorMessage={exportErrorMessage}
      showErrorDetail
    />
  );
}
