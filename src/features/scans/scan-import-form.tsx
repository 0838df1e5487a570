import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../../lib/api-client.ts';
import { checkUploadFile, MAX_UPLOAD_BYTES, UploadAbortedError } from '../../lib/upload.ts';
import { importReport, type ReportFormat, type Scan } from './scans-api.ts';
import { REPORT_EXTENSIONS } from './scan-rules.ts';

const FORMAT_LABELS: Record<ReportFormat, string> = {
  auto: 'Détection automatique',
  trivy: 'Trivy (JSON)',
  nmap: 'Nmap (XML)',
  openvas: 'OpenVAS (XML)',
};

const NUMBER = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });

function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${NUMBER.format(bytes / 1024)} Ko`;
  return `${NUMBER.format(bytes / (1024 * 1024))} Mo`;
}

/** Upload of a scanner report (multipart) with a progress bar; checks size and extension before sending. */
export function ScanImportForm({ onDone, onClose }: { onDone: (scan: Scan) => void; onClose: () => void }) {
  const id = useId();
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');
  const [format, setFormat] = useState<ReportFormat>('auto');
  const [start, setStart] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [sending, setSending] = useState(false);
  const abortRef = useRef<AbortController | null>(null);

  useEffect(() => () => abortRef.current?.abort(), []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const problem = checkUploadFile(file, { maxBytes: MAX_UPLOAD_BYTES, extensions: REPORT_EXTENSIONS[format] });
    if (problem || !file) {
      setError(problem);
      return;
    }
    setError(null);
    setSending(true);
    setProgress(0);
    const controller = new AbortController();
    abortRef.current = controller;
    try {
      const scan = await importReport(
        { file, name: name.trim() || undefined, format, start },
        { signal: controller.signal, onProgress: (p) => setProgress(p.percent) },
      );
      onDone(scan);
    } catch (err) {
      setError(err instanceof ApiError || err instanceof UploadAbortedError ? err.message : 'Erreur inattendue.');
    } finally {
      abortRef.current = null;
      setSending(false);
      setProgress(null);
    }
  }

  return (
    <form className="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Importer un rapport de scanner</h2>
      <p className="muted">Trivy (JSON), Nmap ou OpenVAS (XML), 50 Mo au plus.</p>
      <div className="vm-form">
        <div className="vm-field vm-wide">
          <label htmlFor={`${id}-file`}>Fichier du rapport *</label>
          <input
            id={`${id}-file`}
            type="file"
            accept={REPORT_EXTENSIONS[format]?.join(',')}
            disabled={sending}
            aria-describedby={`${id}-file-help`}
            onChange={(e) => {
              setFile(e.target.files?.[0] ?? null);
              setError(null);
            }}
          />
          <span id={`${id}-file-help`} className="muted">
            {file ? `${file.name} — ${formatSize(file.size)}` : 'Aucun fichier choisi'}
          </span>
        </div>
        <div className="vm-field">
          <label htmlFor={`${id}-format`}>Format</label>
          <select
            id={`${id}-format`}
            value={format}
            disabled={sending}
            onChange={(e) => setFormat(e.target.value as ReportFormat)}
          >
            {Object.entries(FORMAT_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="vm-field">
          <label htmlFor={`${id}-name`}>Nom du scan</label>
          <input
            id={`${id}-name`}
            value={name}
            disabled={sending}
            placeholder="par défaut : nom du fichier"
            onChange={(e) => setName(e.target.value)}
          />
        </div>
        <label className="vm-field vm-check vm-wide">
          <input type="checkbox" checked={start} disabled={sending} onChange={(e) => setStart(e.target.checked)} />
          Traiter le rapport dès l’import
        </label>
        {sending && (
          <div className="vm-wide">
            <div className="vm-progress">
              <div
                className="vm-progress-track"
                role="progressbar"
                aria-label="Envoi du rapport"
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={progress ?? undefined}
              >
                <span className="vm-progress-fill" style={{ width: `${progress ?? 0}%` }} />
              </div>
            </div>
            <p aria-live="polite" className="muted">
              {progress === null
                ? 'Envoi en cours…'
                : progress >= 100
                  ? 'Envoyé, analyse par le serveur…'
                  : `Envoi : ${NUMBER.format(progress)} %`}
            </p>
          </div>
        )}
        {error && (
          <p className="error vm-wide" role="alert">
            {error}
          </p>
        )}
        <div className="vm-form-actions">
          <button type="submit" className="btn primary" disabled={sending}>
            {sending ? 'Envoi…' : 'Importer'}
          </button>
          {sending ? (
            <button type="button" className="btn secondary" onClick={() => abortRef.current?.abort()}>
              Annuler l’envoi
            </button>
          ) : (
            <button type="button" className="btn secondary" onClick={onClose}>
              Fermer
            </button>
          )}
        </div>
      </div>
    </form>
  );
}
