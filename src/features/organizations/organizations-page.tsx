import { Link, useLocation } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { roleLabel, tenantRoleOf } from '../../lib/auth/roles.ts';
import { currentTenantId, session, switchTenant } from '../../lib/auth/session.ts';
import type { UserProfile } from '../../lib/auth/types.ts';

interface Membership {
  id: string;
  name: string;
  role: string;
}

/** Every tenant the profile reaches, with the role held there; names from either list the server may send. */
export function membershipsOf(profile: UserProfile): Membership[] {
  const names = new Map((profile.tenants ?? []).map((t) => [t.id, t.name]));
  for (const m of profile.tenant_memberships ?? [])
    if (!names.has(m.tenant_id)) names.set(m.tenant_id, m.tenant_name ?? m.tenant_id);
  return [...names].map(([id, name]) => ({ id, name, role: tenantRoleOf(profile, id) }));
}

/**
 * « Mes organisations » (spec §2's protected /tenants and /organizations areas): the tenants the user belongs to,
 * their role in each, which one is current, and the way to change it. Managing tenants stays in the administration.
 */
export default function OrganizationsPage() {
  useSignals();
  const [, go] = useLocation();
  const profile = session.value?.profile;
  if (!profile) return null;
  const current = currentTenantId();
  const memberships = membershipsOf(profile).sort((a, b) => a.name.localeCompare(b.name, 'fr'));

  return (
    <section className="page">
      <h1>Mes organisations</h1>
      {memberships.length === 0 ? (
        <p className="muted">Vous n'êtes membre d'aucune organisation : demandez une invitation à un administrateur.</p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">Organisations dont vous êtes membre</caption>
            <thead>
              <tr>
                <th scope="col">Organisation</th>
                <th scope="col">Votre rôle</th>
                <th scope="col">
                  <span className="sr-only">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {memberships.map((m) => (
                <tr key={m.id} aria-current={m.id === current ? 'true' : undefined}>
                  <th scope="row">{m.name}</th>
                  <td>{roleLabel(m.role)}</td>
                  <td>
                    {m.id === current ? (
                      <strong>Organisation courante</strong>
                    ) : (
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => void switchTenant(m.id).then(() => go('/dashboard'))}
                      >
                        Choisir <span className="sr-only">{m.name}</span>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {profile.is_superuser && (
        <p>
          <Link href="/admin/tenants">Gérer toutes les organisations</Link>
        </p>
      )}
    </section>
  );
}
