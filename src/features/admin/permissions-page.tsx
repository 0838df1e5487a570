import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { fetchAdminPermissions } from './admin-api.ts';
import { DataTable } from '../../components/data-table.tsx';
import { useResource } from '../../lib/use-resource.ts';

const PERMISSION_LABELS: Record<string, string> = {
  add_user: 'Créer des utilisateurs',
  change_user: 'Modifier des utilisateurs',
  delete_user: 'Supprimer des utilisateurs',
  view_user: 'Consulter les utilisateurs',
  add_group: 'Créer des groupes',
  change_group: 'Modifier des groupes',
  delete_group: 'Supprimer des groupes',
  view_group: 'Consulter les groupes',
};

const yesNo = (v: boolean) => (v ? 'Oui' : 'Non');

/** Permissions: the spec §3 admin permission set, or the spec §6 UI-only fallback, said to be one, when it cannot be read. */
export default function PermissionsPage() {
  const permissions = useResource(async () => ({ data: await fetchAdminPermissions() }), []);
  if (!permissions.data)
    return (
      <section className="admin-page">
        <h1>Permissions d’administration</h1>
        <p role="status">Chargement des permissions…</p>
      </section>
    );
  const read = permissions.data;
  const refused = read.status === 403;
  return (
    <section className="admin-page">
      <h1>Permissions d’administration</h1>
      {refused && (
        <p className="error" role="alert">
          {read.error}
        </p>
      )}
      {read.assumed && (
        <div className="admin-warning" role="note" data-assumed="true">
          <strong>Permissions supposées.</strong> Elles n’ont pas pu être lues ({read.error}) : l’interface suppose tous
          les droits d’administration pour rester utilisable, mais le serveur reste seul juge et refusera ce qui ne vous
          est pas permis.
        </div>
      )}
      <DataOriginNote origin={read.origin} />
      {!refused && (
        <>
          <dl className="admin-dl">
            <dt>Superutilisateur</dt>
            <dd>{yesNo(read.data.is_superuser)}</dd>
            <dt>Équipe (staff)</dt>
            <dd>{yesNo(read.data.is_staff)}</dd>
            <dt>Groupes</dt>
            <dd>{read.data.groups.length ? read.data.groups.join(', ') : 'Aucun'}</dd>
          </dl>
          <DataTable caption="Permissions accordées" captionClass="" headers={['Permission', 'Code']}>
            {read.data.permissions.map((p) => (
              <tr key={p}>
                <td>{PERMISSION_LABELS[p] ?? p}</td>
                <td>
                  <code>{p}</code>
                </td>
              </tr>
            ))}
          </DataTable>
        </>
      )}
    </section>
  );
}
