import { FormCard, SelectField, TextField } from '../../components/form-field.tsx';
import { optionsOf } from '../../components/select.tsx';
import { useForm } from '../../lib/use-form.ts';
import { createTenant, SUBSCRIPTION_PLANS, TENANT_STATUSES, updateTenant, type Tenant } from './admin-api.ts';
import {
  draftOf,
  PLAN_LABELS,
  TENANT_STATUS_LABELS,
  tenantChanges,
  tenantInput,
  validateTenant,
  type TenantDraft,
} from './tenant-rules.ts';

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
  const form = useForm<TenantDraft>(() => draftOf(tenant));

  const send = async (draft: TenantDraft) => {
    const changes = tenant ? tenantChanges(draft, tenant) : null;
    // Nothing changed: nothing to send.
    if (changes && Object.keys(changes).length === 0) return onClose();
    const saved = tenant && changes ? await updateTenant(tenant.id, changes) : await createTenant(tenantInput(draft));
    onSaved(saved, !tenant);
  };

  return (
    <FormCard
      form={form}
      title={tenant ? `Modifier « ${tenant.name} »` : 'Nouvelle organisation'}
      heading="h2"
      className="card admin-form"
      onSubmit={form.onSubmit(send, { validate: validateTenant })}
      submitLabel={tenant ? 'Enregistrer' : 'Créer l’organisation'}
      onClose={onClose}
    >
      <TextField form={form} name="name" label="Nom *" maxLength={200} required />
      <TextField form={form} name="domain" label="Domaine *" placeholder="exemple.fr" autoComplete="off" required />
      <SelectField
        form={form}
        name="subscription_plan"
        label="Offre"
        disabled={!superuser}
        options={optionsOf(PLAN_LABELS, SUBSCRIPTION_PLANS)}
      />
      <SelectField
        form={form}
        name="status"
        label="Statut"
        disabled={!superuser}
        options={optionsOf(TENANT_STATUS_LABELS, TENANT_STATUSES)}
      />
      <TextField form={form} name="contact_email" label="E-mail de contact" type="email" />
      <TextField form={form} name="logo_url" label="Adresse du logo" placeholder="https://… ou /…" maxLength={2048} />
      {!superuser && (
        <p className="muted vm-wide">L’offre et le statut ne sont modifiables que par un superutilisateur.</p>
      )}
    </FormCard>
  );
}
