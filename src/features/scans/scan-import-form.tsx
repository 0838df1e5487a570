import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../../lib/api-client.ts';
import { FormActions, FormError, FormField } from '../../components/form-field.tsx';
import { ProgressBar } from '../../components/progress-bar.tsx';
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
        <FormField id={`${id}-file`} label="Fichier du rapport *" wide>
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
        </FormField>
        <FormField id={`${id}-format`} label="Format">
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
        </FormField>
        <FormField id={`${id}-name`} label="Nom du scan">
          <input
            id={`${id}-name`}
            value={name}
            disabled={sending}
            placeholder="par défaut : nom du fichier"
            onChange={(e) => setName(e.target.value)}
          />
        </FormField>
        <label className="vm-field vm-check vm-wide">
          <input type="checkbox" checked={start} disabled={sending} onChange={(e) => setStart(e.target.checked)} />
          Traiter le rapport dès l’import
        </label>
        {sending && (
          <div className="vm-wide">
            <ProgressBar label="Envoi du rapport" value={progress} showValue={false} />
            <p aria-live="polite" className="muted">
              {progress === null
                ? 'Envoi en cours…'
                : progress >= 100
                  ? 'Envoyé, analyse par le serveur…'
                  : `Envoi : ${NUMBER.format(progress)} %`}
            </p>
          </div>
        )}
        <FormError error={error} />
        <FormActions
          submitLabel={sending ? 'Envoi…' : 'Importer'}
          disabled={sending}
          closeLabel={sending ? 'Annuler l’envoi' : 'Fermer'}
          onClose={sending ? () => abortRef.current?.abort() : onClose}
        />
      </div>
    </form>
  );
}
