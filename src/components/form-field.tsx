import type { FormEvent, InputHTMLAttributes, ReactNode, TextareaHTMLAttributes } from 'react';
import type { Form } from '../lib/use-form.ts';
import { Select, type Options } from './select.tsx';
import { DateInput } from './date-input.tsx';

/** The ARIA attributes tying a control to its error message, when there is one. */
export function errorAria(errorId: string, error: string | null | undefined) {
  return {
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? errorId : undefined,
  } as const;
}

/** A field's error message (id `id`, the control's `aria-describedby`), when there is one. */
export function FieldError({ id, error }: { id: string; error: string | null | undefined }) {
  if (!error) return null;
  return (
    <span id={id} className="vm-field-error">
      {error}
    </span>
  );
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
      <FieldError id={errorId} error={error} />
    </div>
  );
}

/** A text input (or, `multiline`, a textarea) bound to the form's `name`, with its label and message. */
export function TextField<V extends object>({
  form,
  name,
  label,
  wide = false,
  multiline = false,
  ...attributes
}: {
  form: Form<V>;
  name: keyof V & string;
  label: string;
  wide?: boolean;
  multiline?: boolean;
} & Omit<InputHTMLAttributes<HTMLInputElement> & TextareaHTMLAttributes<HTMLTextAreaElement>, 'form' | 'name'>) {
  const control = form.control(name);
  const { type, ...rest } = attributes;
  return (
    <FormField {...form.field(name)} label={label} wide={wide}>
      {multiline ? (
        <textarea {...attributes} {...control} />
      ) : type === 'date' ? (
        <DateInput {...rest} {...control} onValue={(v) => form.set(name, v as V[typeof name])} />
      ) : (
        <input {...attributes} {...control} />
      )}
    </FormField>
  );
}

/** A select bound to the form's `name`, with its label and message. */
export function SelectField<V extends object>({
  form,
  name,
  label,
  options,
  wide = false,
  disabled,
}: {
  form: Form<V>;
  name: keyof V & string;
  label: string;
  options: Options;
  wide?: boolean;
  disabled?: boolean;
}) {
  return (
    <FormField {...form.field(name)} label={label} wide={wide}>
      <Select {...form.control(name)} options={options} disabled={disabled} />
    </FormField>
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

/**
 * A form in a card: its heading (`<id>-h`, naming the form), its fields in the two-column grid, then the form's
 * notice and error and its buttons (« Enregistrement… » while it sends).
 */
export function FormCard({
  form,
  title,
  heading: Heading = 'h3',
  className = 'card pj-form',
  intro,
  onSubmit,
  submitLabel,
  busyLabel = 'Enregistrement…',
  closeLabel = 'Annuler',
  onClose,
  disabled = false,
  children,
}: {
  form: { id: string; notice: string | null; error: string | null; submitting: boolean };
  title: ReactNode;
  heading?: 'h2' | 'h3' | 'h4';
  className?: string;
  /** Shown between the heading and the fields. */
  intro?: ReactNode;
  onSubmit: (e: FormEvent) => void;
  submitLabel: string;
  busyLabel?: string;
  closeLabel?: string;
  onClose: () => void;
  /** Nothing may be sent (data that is not live): the submit button is off; the fields say so themselves. */
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <form className={className} onSubmit={onSubmit} noValidate aria-labelledby={`${form.id}-h`}>
      <Heading id={`${form.id}-h`}>{title}</Heading>
      {intro}
      <div className="vm-form">
        {children}
        {form.notice && (
          <p className="muted vm-wide" role="status">
            {form.notice}
          </p>
        )}
        <FormError error={form.error} />
        <FormActions
          submitLabel={form.submitting ? busyLabel : submitLabel}
          disabled={form.submitting || disabled}
          closeLabel={closeLabel}
          onClose={onClose}
        />
      </div>
    </form>
  );
}
