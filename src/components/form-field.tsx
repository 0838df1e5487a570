import type { ReactNode } from 'react';

/** The ARIA attributes tying a control to its error message, when there is one. */
export function errorAria(errorId: string, error: string | null | undefined) {
  return {
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? errorId : undefined,
  } as const;
}

/** One row of a form: label, control, and the field's error (id `errorId`, by default `<id>-error`). */
export function FormField({
  id,
  label,
  error,
  errorId = `${id}-error`,
  wide = false,
  children,
}: {
  /** The control's id, for the label. */
  id: string;
  label: string;
  error?: string | null | undefined;
  errorId?: string;
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={`vm-field${wide ? ' vm-wide' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {error && (
        <span id={errorId} className="vm-field-error">
          {error}
        </span>
      )}
    </div>
  );
}

/** The error of the whole form, across its width. */
export function FormError({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p className="error vm-wide" role="alert">
      {error}
    </p>
  );
}

/** Submit and close buttons at the end of a form. */
export function FormActions({
  submitLabel,
  disabled,
  closeLabel,
  onClose,
}: {
  submitLabel: string;
  disabled: boolean;
  closeLabel: string;
  onClose: () => void;
}) {
  return (
    <div className="vm-form-actions">
      <button type="submit" className="btn primary" disabled={disabled}>
        {submitLabel}
      </button>
      <button type="button" className="btn secondary" onClick={onClose}>
        {closeLabel}
      </button>
    </div>
  );
}
