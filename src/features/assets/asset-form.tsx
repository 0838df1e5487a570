import { ApiError } from '../../lib/api-client.ts';
import { FormCard, SelectField, TextField } from '../../components/form-field.tsx';
import { optionsOf } from '../../components/select.tsx';
import { fieldErrorsOf, textsOf, useForm } from '../../lib/use-form.ts';
import { createAsset, updateAsset, type Asset } from './assets-api.ts';
import { ASSET_TYPE_LABELS, CRITICALITY_LABELS, toInput, validateAsset, type AssetDraft } from './asset-rules.ts';

function draftOf(asset: Asset | undefined): AssetDraft {
  return {
    ...textsOf(asset, ['name', 'hostname', 'ip_address', 'operating_system', 'owner', 'description']),
    asset_type: asset?.asset_type ?? 'server',
    criticality: asset?.criticality ?? 'medium',
    internet_exposed: asset?.internet_exposed ?? false,
    tags: (asset?.tags ?? []).join(', '),
  };
}

/** Create (no `asset`) or edit an asset, checked on the client with the server's rules. */
export function AssetForm({
  asset,
  onSaved,
  onClose,
}: {
  asset?: Asset | undefined;
  onSaved: (asset: Asset) => void;
  onClose: () => void;
}) {
  const form = useForm<AssetDraft>(() => draftOf(asset));

  const send = async (draft: AssetDraft) => {
    const body = toInput(draft);
    onSaved(asset ? await updateAsset(asset.id, body) : await createAsset(body));
  };
  const fieldErrors = (err: unknown) => ({
    ...fieldErrorsOf(err, { keys: Object.keys(form.values) }),
    // 409: the name is taken.
    ...(err instanceof ApiError && err.status === 409 ? { name: err.message } : {}),
  });

  return (
    <FormCard
      form={form}
      title={asset ? `Modifier « ${asset.name} »` : 'Nouvel actif'}
      heading="h2"
      className="card"
      onSubmit={form.onSubmit(send, { validate: validateAsset, fieldErrors })}
      submitLabel={asset ? 'Enregistrer' : 'Créer l’actif'}
      onClose={onClose}
    >
      <TextField form={form} name="name" label="Nom *" required />
      <SelectField form={form} name="asset_type" label="Type" options={optionsOf(ASSET_TYPE_LABELS)} />
      <SelectField form={form} name="criticality" label="Criticité" options={optionsOf(CRITICALITY_LABELS)} />
      <div className="vm-field asset-exposed">
        <label htmlFor={`${form.id}-internet_exposed`}>
          <input
            id={`${form.id}-internet_exposed`}
            type="checkbox"
            checked={form.values.internet_exposed}
            aria-describedby={`${form.id}-internet_exposed-hint`}
            onChange={(e) => form.set('internet_exposed', e.target.checked)}
          />{' '}
          Exposé à Internet
        </label>
        <span id={`${form.id}-internet_exposed-hint`} className="muted small">
          Joignable depuis Internet : ses vulnérabilités comptent davantage dans la priorité SSVC.
        </span>
      </div>
      <TextField form={form} name="hostname" label="Nom d’hôte" autoComplete="off" />
      <TextField
        form={form}
        name="ip_address"
        label="Adresse IP"
        inputMode="decimal"
        autoComplete="off"
        placeholder="192.0.2.10"
      />
      <TextField form={form} name="operating_system" label="Système d’exploitation" />
      <TextField form={form} name="owner" label="Propriétaire" />
      <TextField form={form} name="tags" label="Étiquettes (séparées par des virgules)" placeholder="prod, dmz" />
      <TextField form={form} name="description" label="Description" multiline wide />
    </FormCard>
  );
}
