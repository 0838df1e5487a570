import { FormCard, SelectField, TextField } from '../../components/form-field.tsx';
import { optionsOf } from '../../components/select.tsx';
import { useForm } from '../../lib/use-form.ts';
import { createScan, type Scan } from './scans-api.ts';
import { SCANNER_LABELS } from './scan-rules.ts';

/** A scan record created by hand (its report can be imported later, or findings entered manually). */
export function ScanCreateForm({ onDone, onClose }: { onDone: (scan: Scan) => void; onClose: () => void }) {
  const form = useForm({ name: '', scanner: 'manual', target: '' });
  const send = async ({ name, scanner, target }: typeof form.values) =>
    onDone(await createScan({ name: name.trim(), scanner, ...(target.trim() ? { target: target.trim() } : {}) }));

  return (
    <FormCard
      form={form}
      title="Nouveau scan"
      heading="h2"
      className="card"
      onSubmit={form.onSubmit(send, {
        validate: ({ name }) => (name.trim() === '' ? { name: 'Le nom est obligatoire.' } : {}),
        fieldErrors: () => ({}),
      })}
      submitLabel="Créer le scan"
      busyLabel="Création…"
      closeLabel="Fermer"
      onClose={onClose}
    >
      <TextField form={form} name="name" label="Nom *" required />
      <SelectField form={form} name="scanner" label="Scanner" options={optionsOf(SCANNER_LABELS)} />
      <TextField form={form} name="target" label="Cible" placeholder="ex. 10.0.0.0/24, registry/app:1.2" wide />
    </FormCard>
  );
}
