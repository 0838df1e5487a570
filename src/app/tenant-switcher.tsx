import { useSignals } from '@preact/signals-react/runtime';
import { currentTenantId, session, switchTenant } from '../lib/auth/session.ts';

/** Shown when the user belongs to more than one tenant; the choice travels as X-Tenant-ID. */
export function TenantSwitcher() {
  useSignals();
  const tenants = session.value?.profile.tenants ?? [];
  if (tenants.length < 2) return null;
  const current = currentTenantId();
  return (
    <label className="tenant-switcher">
      <span>Organisation</span>
      <select
        value={current ?? ''}
        onChange={(e) => {
          const id = e.target.value;
          void import('./audit.ts').then(({ audit }) => audit.log('tenant_switch', { from: current, to: id }));
          void switchTenant(id);
        }}
      >
        {tenants.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </select>
    </label>
  );
}
