import { useId, useState, type FormEvent } from 'react';
import { ApiError } from '../../lib/api-client.ts';
import { errorAria, FormActions, FormError, FormField } from '../../components/form-field.tsx';
import { createTenant, SUBSCRIPTION_PLANS, TENANT_STATUSES, updateTenant, type Tenant } from './admin-api.ts';
import {
  draftOf,
  PLAN_LABELS,
  TENANT_STATUS_LABELS,
  tenantChanges,
  tenantInput,
  validateTenant,
  type TenantDraft,
  type TenantFieldErrors,
} from './tenant-rules.ts';

const FIELDS: (keyof TenantDraft)[] = ['name', 'domain', 'subscription_plan', 'status', 'contact_email', 'logo_url'];

/** Create (no `tenant`) or edit a tenant; plan and status are the superusers' (the server refuses the others). */
export function TenantForm({
  tenant,
  superuser,
  onSaved,
  onClose,
}: {
  tenant?: Tenant | undefined;
  superuser: boolean;
  onSaved: (tenant: Tenant, created: boolean) => void;
  onClose: () => void;
}) {
  const id = useId();
  const [draft, setDraft] = useState<TenantDraft>(() => draftOf(tenant));
  const [errors, setErrors] = useState<TenantFieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const set = (key: keyof TenantDraft) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const found = validateTenant(draft);
    setErrors(found);
    setError(null);
    if (Object.keys(found).length > 0) return;
    const changes = tenant ? tenantChanges(draft, tenant) : null;
    if (changes && Object.keys(changes).length === 0) {
      onClose();
      return;
    }
    setSending(true);
    try {
      const saved = tenant && changes ? await updateTenant(tenant.id, changes) : await createTenant(tenantInput(draft));
      onSaved(saved, !tenant);
    } catch (err) {
      if (err instanceof ApiError) {
        const mapped: TenantFieldErrors = {};
        for (const key of FIELDS) {
          const first = err.fields[key]?.[0];
          if (first) mapped[key] = first;
        }
        setErrors(mapped);
        setError(err.message);
      } else setError('Erreur inattendue.');
    } finally {
      setSending(false);
    }
  }

  const field = (name: keyof TenantDraft) => ({
    id: `${id}-${name}`,
    errorId: `${id}-${name}-error`,
    error: errors[name],
  });
  const aria = (name: keyof TenantDraft) => errorAria(`${id}-${name}-error`, errors[name]);

  return (
    <form className="card admin-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{tenant ? `Modifier « ${tenant.name} »` : 'Nouvelle organisation'}</h2>
      <div className="vm-form">
        <FormField {...field('name')} label="Nom *">
          <input
            id={`${id}-name`}
            value={draft.name}
            maxLength={200}
            required
            onChange={(e) => set('name')(e.target.value)}
            {...aria('name')}
          />
        </FormField>
        <FormField {...field('domain')} label="Domaine *">
          <input
            id={`${id}-domain`}
            value={draft.domain}
            placeholder="exemple.fr"
            autoComplete="off"
            required
            onChange={(e) => set('domain')(e.target.value)}
            {...aria('domain')}
          />
        </FormField>
        <FormField {...field('subscription_plan')} label="Offre">
          <select
            id={`${id}-subscription_plan`}
            value={draft.subscription_plan}
            disabled={!superuser}
            onChange={(e) => set('subscription_plan')(e.target.value)}
            {...aria('subscription_plan')}
          >
            {SUBSCRIPTION_PLANS.map((p) => (
              <option key={p} value={p}>
                {PLAN_LABELS[p]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField {...field('status')} label="Statut">
          <select
            id={`${id}-status`}
            value={draft.status}
            disabled={!superuser}
            onChange={(e) => set('status')(e.target.value)}
            {...aria('status')}
          >
            {TENANT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {TENANT_STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </FormField>
        <FormField {...field('contact_email')} label="E-mail de contact">
          <input
            id={`${id}-contact_email`}
            type="email"
            value={draft.contact_email}
            onChange={(e) => set('contact_email')(e.target.value)}
            {...aria('contact_email')}
          />
        </FormField>
        <FormField {...field('logo_url')} label="Adresse du logo">
          <input
            id={`${id}-logo_url`}
            value={draft.logo_url}
            placeholder="https://… ou /…"
            maxLength={2048}
            onChange={(e) => set('logo_url')(e.target.value)}
            {...aria('logo_url')}
          />
        </FormField>
        {!superuser && (
          <p className="muted vm-wide">L’offre et le statut ne sont modifiables que par un superutilisateur.</p>
        )}
        <FormError error={error} />
        <FormActions
          submitLabel={sending ? 'Enregistrement…' : tenant ? 'Enregistrer' : 'Créer l’organisation'}
          disabled={sending}
          closeLabel="Annuler"
          onClose={onClose}
        />
      </div>
    </form>
  );
}
