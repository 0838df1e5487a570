import { useEffect, useState } from 'react';
import { FormCard, SelectField, TextField } from '../../components/form-field.tsx';
import { optionsOf } from '../../components/select.tsx';
import { charCount } from '../../../contract/text.ts';
import { useForm, type FieldErrors } from '../../lib/use-form.ts';
import { fetchAssetChoices, updateScan, type Scan } from './scans-api.ts';
import { SCANNER_LABELS } from './scan-rules.ts';

interface ScanTexts {
  name: string;
  scanner: string;
  target: string;
  asset_id: string;
}

/** The server's checks and messages (server/src/schemas/scans.ts), before anything is sent. */
export function validateScanEdit(values: ScanTexts): FieldErrors<keyof ScanTexts> {
  const errors: FieldErrors<keyof ScanTexts> = {};
  const name = values.name.trim();
  if (name === '') errors.name = 'Le nom du scan est requis.';
  else if (charCount(name) > 200) errors.name = 'Le nom ne doit pas dépasser 200 caractères.';
  if (charCount(values.target.trim()) > 1000) errors.target = 'La cible ne doit pas dépasser 1000 caractères.';
  return errors;
}

/**
 * A scan's name, scanner, target and asset edited (spec §7 PUT): PUT replaces them all, so every field is sent, the
 * untouched ones as they were. Its report, status and counts are the platform's and stay.
 */
export function ScanEditForm({
  scan,
  onSaved,
  onClose,
}: {
  scan: Scan;
  onSaved: (scan: Scan) => void;
  onClose: () => void;
}) {
  const form = useForm<ScanTexts>(() => ({
    name: scan.name,
    scanner: scan.scanner,
    target: scan.target ?? '',
    asset_id: scan.asset_id === null ? '' : String(scan.asset_id),
  }));
  const [assets, setAssets] = useState<{ id: number | string; name: string }[] | null>(null);
  useEffect(() => {
    let live = true;
    void fetchAssetChoices().then((list) => {
      if (live) setAssets(list);
    });
    return () => {
      live = false;
    };
  }, []);

  // The scan's own asset and scanner stay choices even when the lists do not hold them.
  const assetList = [...(assets ?? [])];
  if (scan.asset_id !== null && !assetList.some((a) => String(a.id) === String(scan.asset_id))) {
    assetList.unshift({ id: scan.asset_id, name: `Actif n° ${scan.asset_id}` });
  }
  const scanners =
    scan.scanner in SCANNER_LABELS ? SCANNER_LABELS : { [scan.scanner]: scan.scanner, ...SCANNER_LABELS };

  const send = async (v: ScanTexts) =>
    onSaved(
      await updateScan(scan.id, {
        name: v.name.trim(),
        scanner: v.scanner,
        target: v.target.trim() === '' ? null : v.target.trim(),
        asset_id: v.asset_id === '' ? null : Number(v.asset_id),
      }),
    );

  return (
    <FormCard
      form={form}
      title={`Modifier le scan « ${scan.name} »`}
      heading="h2"
      className="card"
      onSubmit={form.onSubmit(send, { validate: validateScanEdit })}
      submitLabel="Enregistrer"
      onClose={onClose}
    >
      <TextField form={form} name="name" label="Nom *" required maxLength={200} />
      <SelectField form={form} name="scanner" label="Scanner" options={optionsOf(scanners)} />
      <TextField form={form} name="target" label="Cible" placeholder="ex. 10.0.0.0/24, registry/app:1.2" wide />
      <SelectField
        form={form}
        name="asset_id"
        label={assets === null ? 'Actif visé (chargement…)' : 'Actif visé'}
        options={[['', 'Aucun'], ...assetList.map((a) => [String(a.id), a.name] as const)]}
      />
    </FormCard>
  );
}
