import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { ApiError } from '../../lib/api-client.ts';
import { errorAria, FormActions, FormError, FormField } from '../../components/form-field.tsx';
import { createAsset, updateAsset, type Asset } from './assets-api.ts';
import {
  ASSET_TYPE_LABELS,
  CRITICALITY_LABELS,
  toInput,
  validateAsset,
  type AssetDraft,
  type AssetFieldErrors,
} from './asset-rules.ts';

function draftOf(asset: Asset | undefined): AssetDraft {
  return {
    name: asset?.name ?? '',
    asset_type: asset?.asset_type ?? 'server',
    hostname: asset?.hostname ?? '',
    ip_address: asset?.ip_address ?? '',
    operating_system: asset?.operating_system ?? '',
    criticality: asset?.criticality ?? 'medium',
    owner: asset?.owner ?? '',
    description: asset?.description ?? '',
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
  const id = useId();
  const [draft, setDraft] = useState<AssetDraft>(() => draftOf(asset));
  const [errors, setErrors] = useState<AssetFieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);

  const set = (key: keyof AssetDraft) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [key]: e.target.value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const found = validateAsset(draft);
    setErrors(found);
    setError(null);
    if (Object.keys(found).length > 0) return;
    setSending(true);
    try {
      const body = toInput(draft);
      onSaved(asset ? await updateAsset(asset.id, body) : await createAsset(body));
    } catch (err) {
      if (err instanceof ApiError) {
        const mapped: AssetFieldErrors = {};
        for (const [key, messages] of Object.entries(err.fields)) {
          if (key in draft && messages[0]) mapped[key as keyof AssetDraft] = messages[0];
        }
        // 409: the name is taken.
        if (err.status === 409) mapped.name = err.message;
        setErrors(mapped);
        setError(err.message);
      } else setError('Erreur inattendue.');
    } finally {
      setSending(false);
    }
  }

  const field = (key: keyof AssetDraft, text: string, input: ReactNode, wide = false) => (
    <FormField id={`${id}-${key}`} label={text} error={errors[key]} wide={wide}>
      {input}
    </FormField>
  );
  const aria = (key: keyof AssetDraft) => ({ id: `${id}-${key}`, ...errorAria(`${id}-${key}-error`, errors[key]) });

  return (
    <form className="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{asset ? `Modifier « ${asset.name} »` : 'Nouvel actif'}</h2>
      <div className="vm-form">
        {field('name', 'Nom *', <input {...aria('name')} value={draft.name} required onChange={set('name')} />)}
        {field(
          'asset_type',
          'Type',
          <select {...aria('asset_type')} value={draft.asset_type} onChange={set('asset_type')}>
            {Object.entries(ASSET_TYPE_LABELS).map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>,
        )}
        {field(
          'criticality',
          'Criticité',
          <select {...aria('criticality')} value={draft.criticality} onChange={set('criticality')}>
            {Object.entries(CRITICALITY_LABELS).map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>,
        )}
        {field(
          'hostname',
          'Nom d’hôte',
          <input {...aria('hostname')} value={draft.hostname} autoComplete="off" onChange={set('hostname')} />,
        )}
        {field(
          'ip_address',
          'Adresse IP',
          <input
            {...aria('ip_address')}
            value={draft.ip_address}
            inputMode="decimal"
            autoComplete="off"
            placeholder="192.0.2.10"
            onChange={set('ip_address')}
          />,
        )}
        {field(
          'operating_system',
          'Système d’exploitation',
          <input {...aria('operating_system')} value={draft.operating_system} onChange={set('operating_system')} />,
        )}
        {field('owner', 'Propriétaire', <input {...aria('owner')} value={draft.owner} onChange={set('owner')} />)}
        {field(
          'tags',
          'Étiquettes (séparées par des virgules)',
          <input {...aria('tags')} value={draft.tags} placeholder="prod, dmz" onChange={set('tags')} />,
        )}
        {field(
          'description',
          'Description',
          <textarea {...aria('description')} value={draft.description} onChange={set('description')} />,
          true,
        )}
        <FormError error={error} />
        <FormActions
          submitLabel={sending ? 'Enregistrement…' : asset ? 'Enregistrer' : 'Créer l’actif'}
          disabled={sending}
          closeLabel="Annuler"
          onClose={onClose}
        />
      </div>
    </form>
  );
}
