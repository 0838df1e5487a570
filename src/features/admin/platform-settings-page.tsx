import type { ReactNode } from 'react';
import { useSignals } from '@preact/signals-react/runtime';
import { session } from '../../lib/auth/session.ts';
import { useResource, type Sourced } from '../../lib/use-resource.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { ReadStatus } from '../../components/list-state.tsx';
import { isSuperuser } from '../../lib/auth/admin-access.ts';

/**
 * A page of platform-wide settings (system settings, security policies): superusers edit them, tenant admins only
 * read them. It says so, then shows the loading status or the failure, and once read the data's origin and
 * `children` (the form). Its texts name the settings: `title` « Paramètres système », `noun` « paramètres ».
 */
export function PlatformSettingsPage<T>({
  title,
  noun,
  load,
  children,
}: {
  title: string;
  noun: string;
  load: () => Promise<Sourced<T>>;
  children: (data: T, superuser: boolean) => ReactNode;
}) {
  useSignals();
  const superuser = isSuperuser(session.value?.profile);
  const resource = useResource(load, []);

  return (
    <section className="admin-page">
      <h1>{title}</h1>
      {!superuser && (
        <p className="muted">
          {`Lecture seule : ces ${noun} valent pour toute la plateforme et relèvent des superutilisateurs.`}
        </p>
      )}
      <ReadStatus
        pending={resource.loading}
        loading={`Chargement des ${noun}…`}
        error={resource.error}
        failure={`Impossible de charger les ${title.toLowerCase()}`}
      />
      {resource.data && (
        <>
          <DataOriginNote origin={resource.origin} />
          {children(resource.data, superuser)}
        </>
      )}
    </section>
  );
}
