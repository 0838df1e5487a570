import { fetchSecurityPolicies, updateSecurityPolicies, type PolicyValue } from './admin-api.ts';
import { formatDateTime } from './format.ts';
import { PlatformSettingsPage } from './platform-settings-page.tsx';
import { SettingsForm } from './settings-form.tsx';
import { SECURITY_POLICY_GROUPS } from './setting-specs.ts';

/** Politiques de sécurité: superusers edit (applied at once by the server), tenant admins read. */
export default function SecurityPoliciesPage() {
  return (
    <PlatformSettingsPage title="Politiques de sécurité" noun="politiques" load={fetchSecurityPolicies}>
      {(policies, superuser) => (
        <>
          <p className="muted">
            Dernière modification :{' '}
            {formatDateTime(typeof policies.updated_at === 'string' ? policies.updated_at : null)}. Chaque politique
            s’applique immédiatement, sans redémarrage.
          </p>
          <SettingsForm
            groups={SECURITY_POLICY_GROUPS}
            values={policies}
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
    </PlatformSettingsPage>
  );
}
