import { useId, useState, type FormEvent } from 'react';
import { errorAria, FormField } from '../../components/form-field.tsx';
import { ID_MESSAGE, parseId } from './project-rules.ts';

/** Link an existing record of the tenant (a finding, a threat) by its id. */
export function LinkById({
  title,
  fieldLabel,
  busy,
  onLink,
}: {
  title: string;
  fieldLabel: string;
  busy: boolean;
  onLink: (id: number) => Promise<boolean>;
}) {
  const id = useId();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = parseId(text);
    if (parsed === null) {
      setError(ID_MESSAGE);
      return;
    }
    setError(null);
    if (await onLink(parsed)) setText('');
  }

  return (
    <form className="card pj-inline-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-t`}>
      <h3 id={`${id}-t`}>{title}</h3>
      <div className="pj-inline-fields">
        <FormField id={`${id}-i`} label={fieldLabel} error={error}>
          <input
            id={`${id}-i`}
            inputMode="numeric"
            value={text}
            onChange={(e) => setText(e.target.value)}
            {...errorAria(`${id}-i-error`, error)}
          />
        </FormField>
        <button type="submit" className="btn secondary" disabled={busy}>
          Lier au projet
        </button>
      </div>
    </form>
  );
}
