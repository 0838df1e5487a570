import { useSignals } from '@preact/signals-react/runtime';
import { isAdministrator } from '../lib/auth/admin-access.ts';
import { SettingsPage } from '../features/settings/settings-page.tsx';
import { currentTenantId, session } from '../lib/auth/session.ts';
import type { UserProfile } from '../lib/auth/types.ts';
import { MockModeToggle } from './mock-mode-toggle.tsx';
import { displayTimeZone } from '../lib/format.ts';
import { appearance, chooseTheme, THEME_CHOICE_LABELS, themeChoice, type ThemeChoice } from '../lib/appearance.ts';

/** « Affichage »: this device's theme, light, dark, the device's setting or the platform's default. */
function ThemeChoiceCard() {
  useSignals();
  const platform = THEME_CHOICE_LABELS[appearance.value.theme].toLowerCase();
  return (
    <section className="card form" aria-labelledby="display-title">
      <h2 id="display-title">Affichage</h2>
      <label htmlFor="theme-choice">Thème de cet appareil</label>
      <select id="theme-choice" value={themeChoice.value} onChange={(e) => chooseTheme(e.target.value as ThemeChoice)}>
        {(Object.keys(THEME_CHOICE_LABELS) as ThemeChoice[]).map((c) => (
          <option key={c} value={c}>
            {c === 'platform' ? `${THEME_CHOICE_LABELS[c]} (${platform})` : THEME_CHOICE_LABELS[c]}
          </option>
        ))}
      </select>
      <p className="muted">Le thème sombre convient aux salles de supervision et aux écrans muraux.</p>
      <p className="muted">
        Les dates sont affichées dans le fuseau horaire {displayTimeZone()}
        {appearance.value.timezone ? ' (paramètre de la plateforme)' : ' (celui de cet appareil)'}.
      </p>
    </section>
  );
}

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
      <ThemeChoiceCard />
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
