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

/**
 * CSV / JSON export of the current filters (or of a selection: its `ids`), streamed with a progress bar and a cancel
 * button.
 */
export function ExportControls({
  query,
  expectedRows,
  label = 'Exporter les vulnérabilités filtrées',
}: {
  query: ListQuery;
  expectedRows: number | null;
  label?: string;
}) {
  return (
    <SharedExportControls
      className="export-box"
      label={label}
      expectedRows={expectedRows}
      target={(format) => ({ path: EXPORT_PATH, query: { ...query, format }, filename: exportFilename(format) })}
      errorMessage={exportErrorMessage}
      showErrorDetail
    />
  );
}
