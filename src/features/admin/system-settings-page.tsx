import { useSignals } from '@preact/signals-react/runtime';
import { session } from '../../lib/auth/session.ts';
import { isSuperuser } from './admin-access.ts';
import { fetchSystemSettings, updateSystemSettings, type SystemSettings } from './admin-api.ts';
import { useLoaded } from './load-state.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { SettingsForm } from './settings-form.tsx';
import { SYSTEM_SETTING_GROUPS } from './setting-specs.ts';

/** Paramètres système: every §3 setting with its type; superusers edit (platform-wide), tenant admins read. */
export default function SystemSettingsPage() {
  useSignals();
  const superuser = isSuperuser(session.value?.profile);
  const state = useLoaded(fetchSystemSettings);

  return (
    <section className="admin-page">
      <h1>Paramètres système</h1>
      {!superuser && (
        <p className="muted">
          Lecture seule : ces paramètres valent pour toute la plateforme et relèvent des superutilisateurs.
        </p>
      )}
      {state.kind === 'loading' && <p role="status">Chargement des paramètres…</p>}
      {state.kind === 'failed' && (
        <p className="error" role="alert">
          Impossible de charger les paramètres système : {state.error}
        </p>
      )}
      {state.kind === 'ok' && <DataOriginNote origin={state.data.origin} />}
      {state.kind === 'ok' && (
        <SettingsForm
          groups={SYSTEM_SETTING_GROUPS}
          values={state.data.data}
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
