import { useId, useState, type ChangeEvent, type FormEvent } from 'react';
import { fieldsOf } from '../../contract/api-error.ts';
import { ApiError } from './api-client.ts';
import { messageOf } from './error-message.ts';

export type FieldErrors<K extends string = string> = Partial<Record<K, string>>;

/** The first message of each field of a `fields` map (or all of them joined with `join`); only `keys` when given. */
export function fieldMessages<K extends string = string>(
  fields: Record<string, string[]>,
  { keys, join = false }: { keys?: readonly K[]; join?: boolean } = {},
): FieldErrors<K> {
  const found: FieldErrors<K> = {};
  for (const [key, messages] of Object.entries(fields)) {
    if (keys && !keys.includes(key as K)) continue;
    const text = Array.isArray(messages) ? (join ? messages.join(' ') : messages[0]) : undefined;
    if (text) found[key as K] = text;
  }
  return found;
}

/** The field messages of a refused write (the server's `{detail, code, fields}`), as `fieldMessages` reads them. */
export function fieldErrorsOf<K extends string = string>(
  err: unknown,
  options: { keys?: readonly K[]; join?: boolean } = {},
): FieldErrors<K> {
  return err instanceof ApiError ? fieldMessages(fieldsOf(err.data), options) : {};
}

/** A form's text for each of `keys` of `record`, the record being edited ('' without one, or for an empty field). */
export function textsOf<const K extends string>(
  record: Partial<Record<NoInfer<K>, string | null>> | undefined,
  keys: readonly K[],
): Record<K, string> {
  return Object.fromEntries(keys.map((key) => [key, record?.[key] ?? ''])) as Record<K, string>;
}

export interface SubmitOptions<V> {
  /** The client's own checks, before anything is sent: any message stops the submit. */
  validate?: (values: V) => FieldErrors;
  /** The general message shown when those checks fail (none by default: the fields say it). */
  invalid?: string;
  /** Where a failure's field messages come from (default: the server's `fields` for this form's values). */
  fieldErrors?: (err: unknown) => FieldErrors;
  /** The general message shown beside them (default: `messageOf`). */
  message?: (err: unknown) => string;
}

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/**
 * The one way a form keeps its state: its values, its field errors (the client's checks, then the server's), its
 * general error, an informational notice and whether it is sending. `onSubmit(send)` runs the checks, then `send`
 * with `submitting` on; a failure keeps what was typed and shows the server's words. Ids are `<id>-<field>` and
 * `<id>-<field>-error`, so `field(name)` and `control(name)` tie each control to its label and its message.
 */
export function useForm<V extends object>(initial: V | (() => V), { id }: { id?: string } = {}) {
  const generated = useId();
  const base = id ?? generated;
  const [values, setValues] = useState<V>(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const set = <K extends keyof V>(name: K, value: V[K]) => setValues((v) => ({ ...v, [name]: value }));
  const idOf = (name: keyof V & string) => `${base}-${name}`;
  const errorIdOf = (name: keyof V & string) => `${base}-${name}-error`;

  /** Sends the form: checks, `send`, and on failure the field messages and the general message. */
  async function submit(send: (values: V) => Promise<unknown>, options: SubmitOptions<V> = {}): Promise<boolean> {
    const found = options.validate?.(values) ?? {};
    const invalid = Object.keys(found).length > 0;
    setErrors(found);
    setError(invalid ? (options.invalid ?? null) : null);
    setNotice(null);
    if (invalid) return false;
    setSubmitting(true);
    try {
      await send(values);
      return true;
    } catch (err) {
      setErrors(options.fieldErrors ? options.fieldErrors(err) : fieldErrorsOf(err, { keys: Object.keys(values) }));
      setError(options.message ? options.message(err) : messageOf(err));
      return false;
    } finally {
      setSubmitting(false);
    }
  }

  return {
    id: base,
    values,
    setValues,
    set,
    errors,
    setErrors,
    error,
    setError,
    notice,
    setNotice,
    submitting,
    submit,
    /** The form's `onSubmit`: no page reload, then `submit`. */
    onSubmit:
      (send: (values: V) => Promise<unknown>, options?: SubmitOptions<V>) =>
      (e: FormEvent): void => {
        e.preventDefault();
        void submit(send, options);
      },
    /** `FormField` props for `name`: the control's id and the field's message. */
    field: (name: keyof V & string) => ({ id: idOf(name), errorId: errorIdOf(name), error: errors[name] }),
    /** A text control's props for `name`: id, value, onChange and the ARIA tying it to its message. */
    control: (name: keyof V & string) => ({
      id: idOf(name),
      value: String(values[name] ?? ''),
      onChange: (e: ChangeEvent<Control>) => set(name, e.target.value as V[typeof name]),
      'aria-invalid': errors[name] ? true : undefined,
      'aria-describedby': errors[name] ? errorIdOf(name) : undefined,
    }),
  };
}

export type Form<V extends object> = ReturnType<typeof useForm<V>>;
