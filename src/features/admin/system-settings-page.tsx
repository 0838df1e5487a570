import { useSignals } from '@preact/signals-react/runtime';
import { session } from '../../lib/auth/session.ts';
import { isSuperuser } from './admin-access.ts';
import { fetchSystemSettings, updateSystemSettings, type SystemSettings } from './admin-api.ts';
import { useResource } from '../../lib/use-resource.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { SettingsForm } from './settings-form.tsx';
import { SYSTEM_SETTING_GROUPS } from './setting-specs.ts';

/** Paramètres système: every spec §3 setting with its type; superusers edit (platform-wide), tenant admins read. */
export default function SystemSettingsPage() {
  useSignals();
  const superuser = isSuperuser(session.value?.profile);
  const settings = useResource(fetchSystemSettings, []);

  return (
    <section className="admin-page">
      <h1>Paramètres système</h1>
      {!superuser && (
        <p className="muted">
          Lecture seule : ces paramètres valent pour toute la plateforme et relèvent des superutilisateurs.
        </p>
      )}
      {settings.loading && <p role="status">Chargement des paramètres…</p>}
      {settings.error && (
        <p className="error" role="alert">
          Impossible de charger les paramètres système : {settings.error}
        </p>
      )}
      {settings.data && <DataOriginNote origin={settings.origin} />}
      {settings.data && (
        <SettingsForm
          groups={SYSTEM_SETTING_GROUPS}
          values={settings.data}
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
    </section>
  );
}
