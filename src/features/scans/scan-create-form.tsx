import { useId, useState, type FormEvent } from 'react';
import { ApiError } from '../../lib/api-client.ts';
import { errorAria, FormActions, FormError, FormField } from '../../components/form-field.tsx';
import { createScan, type Scan } from './scans-api.ts';
import { SCANNER_LABELS } from './scan-rules.ts';

/** A scan record created by hand (its report can be imported later, or findings entered manually). */
export function ScanCreateForm({ onDone, onClose }: { onDone: (scan: Scan) => void; onClose: () => void }) {
  const id = useId();
  const [name, setName] = useState('');
  const [scanner, setScanner] = useState('manual');
  const [target, setTarget] = useState('');
  const [nameError, setNameError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    if (name.trim() === '') {
      setNameError('Le nom est obligatoire.');
      return;
    }
    setNameError(null);
    setSending(true);
    try {
      const scan = await createScan({
        name: name.trim(),
        scanner,
        ...(target.trim() ? { target: target.trim() } : {}),
      });
      onDone(scan);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : 'Erreur inattendue.');
    } finally {
      setSending(false);
    }
  }

  return (
    <form className="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Nouveau scan</h2>
      <div className="vm-form">
        <FormField id={`${id}-name`} label="Nom *" error={nameError}>
          <input
            id={`${id}-name`}
            value={name}
            required
            {...errorAria(`${id}-name-error`, nameError)}
            onChange={(e) => setName(e.target.value)}
          />
        </FormField>
        <FormField id={`${id}-scanner`} label="Scanner">
          <select id={`${id}-scanner`} value={scanner} onChange={(e) => setScanner(e.target.value)}>
            {Object.entries(SCANNER_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id={`${id}-target`} label="Cible" wide>
          <input
            id={`${id}-target`}
            value={target}
            placeholder="ex. 10.0.0.0/24, registry/app:1.2"
            onChange={(e) => setTarget(e.target.value)}
          />
        </FormField>
        <FormError error={error} />
        <FormActions
          submitLabel={sending ? 'Création…' : 'Créer le scan'}
          disabled={sending}
          closeLabel="Fermer"
          onClose={onClose}
        />
      </div>
    </form>
  );
}
