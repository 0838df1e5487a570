import { REPORT_FORMAT_LABELS } from '../../../contract/scan-formats.ts';
import { SelectField, TextField } from '../../components/form-field.tsx';
import { FileField, UploadFormCard } from '../../components/upload-field.tsx';
import { optionsOf } from '../../components/select.tsx';
import { UserMessageError } from '../../lib/error-message.ts';
import { checkUploadFile, MAX_UPLOAD_BYTES } from '../../lib/upload.ts';
import { useForm } from '../../lib/use-form.ts';
import { useUpload } from '../../lib/use-upload.ts';
import { importReport, type ReportFormat, type Scan } from './scans-api.ts';
import { REPORT_EXTENSIONS } from './scan-rules.ts';

const FORMAT_LABELS: Record<ReportFormat, string> = { auto: 'Détection automatique', ...REPORT_FORMAT_LABELS };

/** Upload of a scanner report (multipart) with a progress bar; checks size and extension before sending. */
export function ScanImportForm({ onDone, onClose }: { onDone: (scan: Scan) => void; onClose: () => void }) {
  const form = useForm({ file: null as File | null, format: 'auto' as ReportFormat, name: '', start: true });
  const { values, submitting } = form;
  const upload = useUpload();

  const send = async () => {
    const { file, format, name, start } = values;
    const problem = checkUploadFile(file, { maxBytes: MAX_UPLOAD_BYTES, extensions: REPORT_EXTENSIONS[format] });
    if (problem || !file) throw new UserMessageError(problem ?? '');
    onDone(await upload.run((opts) => importReport({ file, name: name.trim() || undefined, format, start }, opts)));
  };

  return (
    <UploadFormCard
      form={form}
      upload={upload}
      status={{ label: 'Envoi du rapport', done: 'Envoyé, analyse par le serveur…' }}
      title="Importer un rapport de scanner"
      heading="h2"
      className="card"
      intro={
        <p className="muted">
          Trivy, Grype, CycloneDX ou SARIF (JSON), Nmap, OpenVAS, Nessus ou Dependency-Check (XML), OWASP ZAP (XML ou
          JSON), éventuellement compressé en gzip, 50 Mo au plus.
        </p>
      }
      onSubmit={form.onSubmit(send, { fieldErrors: () => ({}) })}
      submitLabel="Importer"
      onClose={onClose}
    >
      <FileField
        field={form.field('file')}
        label="Fichier du rapport *"
        accept={REPORT_EXTENSIONS[values.format]?.join(',')}
        disabled={submitting}
        file={values.file}
        onFile={(file) => {
          form.set('file', file);
          form.setError(null);
        }}
      />
      <SelectField form={form} name="format" label="Format" options={optionsOf(FORMAT_LABELS)} disabled={submitting} />
      <TextField
        form={form}
        name="name"
        label="Nom du scan"
        disabled={submitting}
        placeholder="par défaut : nom du fichier"
      />
      <label className="vm-field vm-check vm-wide">
        <input
          type="checkbox"
          checked={values.start}
          disabled={submitting}
          onChange={(e) => form.set('start', e.target.checked)}
        />
        Traiter le rapport dès l’import
      </label>
    </UploadFormCard>
  );
}
