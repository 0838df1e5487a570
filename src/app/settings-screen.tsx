import { useSignals } from '@preact/signals-react/runtime';
import { isAdministrator } from '../features/admin/admin-access.ts';
import { SettingsPage } from '../features/settings/settings-page.tsx';
import { currentTenantId, session } from '../lib/auth/session.ts';
import type { UserProfile } from '../lib/auth/types.ts';
import { MockModeToggle } from './mock-mode-toggle.tsx';

/** The developer switches show to administrators, and to everyone in a development build. */
export function showsDeveloperTools(
  profile: UserProfile | undefined,
  tenantId: string | undefined,
  development: boolean = import.meta.env.DEV,
): boolean {
  return development || (!!profile && isAdministrator(profile, tenantId));
}

/**
 * « Préférences » as the app composes it: the user's own settings and, for administrators (everyone in a development
 * build), the developer switches — kept off every other screen so nobody flips them by accident.
 */
export default function SettingsScreen() {
  useSignals();
  const profile = session.value?.profile;
  const tools = showsDeveloperTools(profile, currentTenantId());
  return (
    <SettingsPage>
      {tools && (
        <section className="card form" aria-labelledby="dev-tools-title">
          <h2 id="dev-tools-title">Outils de démonstration</h2>
          <p className="muted">
            Le mode API simulée répond sur cet appareil avec des données fictives, sans rien envoyer au serveur : pour
            une démonstration ou une formation.
          </p>
          <MockModeToggle />
        </section>
      )}
    </SettingsPage>
  );
}
