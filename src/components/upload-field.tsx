import type { ComponentProps } from 'react';
import { formatFileSize } from '../lib/file-size.ts';
import { FormCard, FormField } from './form-field.tsx';
import { ProgressBar } from './progress-bar.tsx';

/** A file input with its label, the chosen file's name and size below it, and the field's message. */
export function FileField({
  field,
  label,
  accept,
  disabled,
  file,
  onFile,
}: {
  field: { id: string; errorId: string; error?: string | null | undefined };
  label: string;
  accept: string | undefined;
  disabled: boolean;
  file: File | null;
  onFile: (file: File | null) => void;
}) {
  return (
    <FormField {...field} label={label} wide>
      <input
        id={field.id}
        type="file"
        accept={accept}
        disabled={disabled}
        aria-invalid={field.error ? true : undefined}
        aria-describedby={`${field.id}-help${field.error ? ` ${field.errorId}` : ''}`}
        onChange={(e) => onFile(e.target.files?.[0] ?? null)}
      />
      <span id={`${field.id}-help`} className="muted">
        {file ? `${file.name} — ${formatFileSize(file.size)}` : 'Aucun fichier choisi'}
      </span>
    </FormField>
  );
}

/** An upload's progress across the form: the bar, then what happens (sending, then `done` once all is sent). */
export function UploadStatus({ label, progress, done }: { label: string; progress: number | null; done: string }) {
  return (
    <div className="vm-wide">
      <ProgressBar label={label} value={progress} showValue={false} />
      <p aria-live="polite" className="muted">
        {progress === null
          ? 'Envoi en cours…'
          : progress >= 100
            ? done
            : `Envoi : ${new Intl.NumberFormat('fr-FR').format(progress)} %`}
      </p>
    </div>
  );
}

/**
 * A form that sends a file: while it is sending, its close button cancels the upload and the progress shows below
 * the fields (`status`: the bar's label, and what to say once everything is sent).
 */
export function UploadFormCard({
  upload,
  status,
  onClose,
  children,
  ...card
}: Omit<ComponentProps<typeof FormCard>, 'busyLabel' | 'closeLabel'> & {
  upload: { progress: number | null; cancel: () => void };
  status: { label: string; done: string };
}) {
  const sending = card.form.submitting;
  return (
    <FormCard
      {...card}
      busyLabel="Envoi…"
      closeLabel={sending ? 'Annuler l’envoi' : 'Fermer'}
      onClose={sending ? upload.cancel : onClose}
    >
      {children}
      {sending && <UploadStatus label={status.label} progress={upload.progress} done={status.done} />}
    </FormCard>
  );
}
