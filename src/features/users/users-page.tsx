import { useEffect, useState } from 'react';
import { apiRequestWithOrigin, ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';

interface AdminUser {
  id: number;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  is_active: boolean;
  role: string;
  last_login: string | null;
}

interface Page<T> {
  count: number;
  results: T[];
}

const ROLE_LABELS: Record<string, string> = {
  admin: 'Administrateur',
  manager: 'Responsable',
  user: 'Utilisateur',
  readonly: 'Lecture seule',
};

const DATE = new Intl.DateTimeFormat('fr-FR', { dateStyle: 'short', timeStyle: 'short' });

/** User administration of the current tenant (read-only list; editing arrives with the administration screens). */
export function UsersPage() {
  const [state, setState] = useState<{ users: AdminUser[]; count: number; origin?: DataOrigin } | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    apiRequestWithOrigin<Page<AdminUser>>('/admin/users/', {
      query: { page: 1, page_size: 100 },
      allowForbidden: true,
    }).then(
      ({ data, origin }) => live && setState({ users: data.results, count: data.count, origin }),
      (err: unknown) => {
        if (!live) return;
        setError(err instanceof ApiError ? err.message : 'Erreur inattendue.');
        setState({ users: [], count: 0 });
      },
    );
    return () => {
      live = false;
    };
  }, []);

  return (
    <section className="page">
      <h1>Utilisateurs</h1>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!state && <p>Chargement…</p>}
      {state && (
        <>
          <DataOriginNote origin={state.origin} />
          <p className="muted">{state.count === 1 ? '1 utilisateur' : `${state.count} utilisateurs`}</p>
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">Nom d’utilisateur</th>
                  <th scope="col">Nom</th>
                  <th scope="col">Email</th>
                  <th scope="col">Rôle</th>
                  <th scope="col">Actif</th>
                  <th scope="col">Dernière connexion</th>
                </tr>
              </thead>
              <tbody>
                {state.users.map((u) => (
                  <tr key={u.id}>
                    <td>{u.username}</td>
                    <td>{[u.first_name, u.last_name].filter(Boolean).join(' ') || '—'}</td>
                    <td>{u.email}</td>
                    <td>{ROLE_LABELS[u.role] ?? u.role}</td>
                    <td>{u.is_active ? 'Oui' : 'Non'}</td>
                    <td>{u.last_login ? DATE.format(new Date(u.last_login)) : 'Jamais'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
