import { fetchSystemSettings, updateSystemSettings, type SystemSettings } from './admin-api.ts';
import { PlatformSettingsPage } from './platform-settings-page.tsx';
import { SettingsForm } from './settings-form.tsx';
import { SYSTEM_SETTING_GROUPS } from './setting-specs.ts';

/** Paramètres système: every spec §3 setting with its type; superusers edit (platform-wide), tenant admins read. */
export default function SystemSettingsPage() {
  return (
    <PlatformSettingsPage title="Paramètres système" noun="paramètres" load={fetchSystemSettings}>
      {(settings, superuser) => (
        <SettingsForm
          groups={SYSTEM_SETTING_GROUPS}
          values={settings}
          readOnly={!superuser}
          onSave={(changes) => updateSystemSettings(changes as SystemSettings)}
          warning={(draft, saved) =>
            draft.maintenance_mode === true && (
              <div className="admin-warning" role="alert">
                <strong>
                  {saved.maintenance_mode === true ? 'Mode maintenance actif.' : 'Attention : mode maintenance.'}
                </strong>{' '}
                Tant qu’il est actif, l’API répond « Maintenance en cours » (503) à tous les utilisateurs sauf aux
                administrateurs : les équipes ne peuvent plus travailler. Désactivez-le dès la fin de l’intervention.
              </div>
            )
          }
        />
      )}
    </PlatformSettingsPage>
  );
}
