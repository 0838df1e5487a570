import { useSignals } from '@preact/signals-react/runtime';
import { session } from '../../lib/auth/session.ts';
import { isSuperuser } from './admin-access.ts';
import { fetchSecurityPolicies, updateSecurityPolicies, type PolicyValue } from './admin-api.ts';
import { formatDateTime } from './format.ts';
import { useResource } from '../../lib/use-resource.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { SettingsForm } from './settings-form.tsx';
import { SECURITY_POLICY_GROUPS } from './setting-specs.ts';

/** Politiques de sécurité: superusers edit (applied at once by the server), tenant admins read. */
export default function SecurityPoliciesPage() {
  useSignals();
  const superuser = isSuperuser(session.value?.profile);
  const policies = useResource(fetchSecurityPolicies, []);

  return (
    <section className="admin-page">
      <h1>Politiques de sécurité</h1>
      {!superuser && (
        <p className="muted">
          Lecture seule : ces politiques valent pour toute la plateforme et relèvent des superutilisateurs.
        </p>
      )}
      {policies.loading && <p role="status">Chargement des politiques…</p>}
      {policies.error && (
        <p className="error" role="alert">
          Impossible de charger les politiques de sécurité : {policies.error}
        </p>
      )}
      {policies.data && (
        <>
          <DataOriginNote origin={policies.origin} />
          <p className="muted">
            Dernière modification :{' '}
            {formatDateTime(typeof policies.data.updated_at === 'string' ? policies.data.updated_at : null)}. Chaque
            politique s’applique immédiatement, sans redémarrage.
          </p>
          <SettingsForm
            groups={SECURITY_POLICY_GROUPS}
            values={policies.data}
            readOnly={!superuser}
            onSave={(changes) => updateSecurityPolicies(changes as Record<string, PolicyValue>)}
            warning={(draft) => {
              const roles = Array.isArray(draft.two_factor_required_roles) ? draft.two_factor_required_roles : [];
              return (
                superuser &&
                (roles.includes('superuser') || roles.includes('admin')) && (
                  <p className="admin-warning" role="note">
                    Vous êtes concerné : sans double authentification active sur votre compte, vous devrez la configurer
                    avant de pouvoir utiliser la console à nouveau.
                  </p>
                )
              );
            }}
          />
        </>
      )}
    </section>
  );
}
