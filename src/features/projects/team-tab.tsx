import { useId, useState, type FormEvent } from 'react';
import { useSignals } from '@preact/signals-react/runtime';
import { DataTable } from '../../components/data-table.tsx';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { errorAria, FormField } from '../../components/form-field.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { optionsOf, Select } from '../../components/select.tsx';
import { may } from '../../lib/auth/can-write.ts';
import { useResource } from '../../lib/use-resource.ts';
import { addTeamMember, changeProjectOwner, listTeam, listTenantUsers, removeTeamMember } from './projects-api.ts';
import type { Id, TeamMember, TeamRole, TenantUser } from './project-types.ts';
import { formatDateTime, label, parseId, TEAM_ROLE_LABELS, TEAM_ROLES, USER_ID_MESSAGE } from './project-rules.ts';
import { TabBody, TabMessages, useTabList, type TabProps } from './project-tab.tsx';

/** Only tenant administrators may read the tenant's user list (GET /api/admin/users/). */
function mayListUsers(): boolean {
  return may('view_user');
}

/** Équipe: members with role and owner badge; managers add, change the role of, remove members and set the owner. */
export function TeamTab(props: TabProps) {
  useSignals();
  const { project, canManage, onChanged } = props;
  const tab = useTabList(props, () => listTeam(project.id));

  const replace = (member: TeamMember | null, id: Id) =>
    tab.list.update((page) => ({
      ...page,
      results: member
        ? page.results.some((m) => String(m.id) === String(id))
          ? page.results.map((m) => (String(m.id) === String(id) ? member : m))
          : [...page.results, member]
        : page.results.filter((m) => String(m.id) !== String(id)),
    }));

  const changeRole = (m: TeamMember, role: TeamRole) =>
    tab.act(
      `role-${m.id}`,
      () => addTeamMember(project.id, m.id, role),
      `Rôle de ${m.name} : ${TEAM_ROLE_LABELS[role]}.`,
      (saved) => (saved ? replace({ ...m, ...saved }, m.id) : undefined),
    );

  const remove = async (m: TeamMember) => {
    const ok = await tab.act(
      `remove-${m.id}`,
      () => removeTeamMember(project.id, m.id),
      `${m.name} a quitté l’équipe.`,
    );
    if (ok) {
      tab.setConfirming(null);
      replace(null, m.id);
    }
  };

  const makeOwner = async (m: TeamMember) => {
    const ok = await tab.act(
      `owner-${m.id}`,
      () => changeProjectOwner(project.id, m.id),
      `${m.name} est désormais propriétaire du projet.`,
    );
    if (ok) {
      void tab.list.refresh();
      onChanged();
    }
  };

  return (
    <div className="pj-tab">
      <TabMessages tab={tab} />
      {canManage && (
        <AddMember
          members={tab.list.data?.results ?? []}
          busy={tab.busy === 'add'}
          onAdd={(userId, role) =>
            tab.act(
              'add',
              () => addTeamMember(project.id, userId, role),
              'Membre ajouté à l’équipe.',
              () => void tab.list.refresh(),
            )
          }
        />
      )}
      <TabBody tab={tab} loading="Chargement de l’équipe…" empty="Aucun membre dans l’équipe.">
        {(page) => (
          <DataTable
            caption="Membres de l’équipe"
            headers={['Nom', 'Email', 'Rôle', 'Dernière activité']}
            actions={canManage}
          >
            {page.results.map((m) => (
              <tr key={m.id} data-member-id={m.id}>
                <th scope="row">
                  {m.name}
                  {m.is_owner && <span className="vm-badge ok pj-owner">Propriétaire</span>}
                </th>
                <td>{m.email || '—'}</td>
                <td>
                  {canManage && !m.is_owner ? (
                    <Select
                      aria-label={`Rôle de ${m.name}`}
                      value={m.role}
                      disabled={tab.busy === `role-${m.id}`}
                      options={optionsOf(TEAM_ROLE_LABELS, TEAM_ROLES)}
                      onChange={(e) => void changeRole(m, e.target.value as TeamRole)}
                    />
                  ) : (
                    label(TEAM_ROLE_LABELS, m.role)
                  )}
                </td>
                <td>{m.last_active ? formatDateTime(m.last_active) : 'Jamais'}</td>
                {canManage && (
                  <td>
                    {m.is_owner ? (
                      <span className="muted">—</span>
                    ) : (
                      <DeletableRowActions
                        name={m.name}
                        question="Retirer ce membre de l’équipe ?"
                        confirming={tab.confirming === m.id}
                        busy={tab.busy === `remove-${m.id}`}
                        onAsk={() => tab.setConfirming(m.id)}
                        onConfirm={() => void remove(m)}
                        onCancel={() => tab.setConfirming(null)}
                      >
                        <RowAction
                          action="owner"
                          text="Rendre propriétaire"
                          name={m.name}
                          disabled={tab.busy === `owner-${m.id}`}
                          onClick={() => void makeOwner(m)}
                        />
                      </DeletableRowActions>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </DataTable>
        )}
      </TabBody>
    </div>
  );
}

function userLabel(u: TenantUser): string {
  const full = [u.first_name, u.last_name].filter(Boolean).join(' ');
  return `${full || u.username} (${u.email})`;
}

/**
 * Add a member: administrators choose among the tenant's users; for other managers the user list is not readable,
 * so they type the user's id.
 */
function AddMember({
  members,
  busy,
  onAdd,
}: {
  members: TeamMember[];
  busy: boolean;
  onAdd: (userId: Id, role: TeamRole) => Promise<boolean>;
}) {
  const id = useId();
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState<TeamRole>('MEMBER');
  const [error, setError] = useState<string | null>(null);
  const canList = mayListUsers();
  // Read only by those allowed to: for the others the list stays unread and they type an id.
  const users = useResource(
    async () => ({ data: canList ? await listTenantUsers() : { users: [] as TenantUser[], readable: false } }),
    [canList],
  );

  const choosing = canList && users.data?.readable === true;
  const onTeam = new Set(members.map((m) => String(m.id)));
  const candidates = (users.data?.users ?? []).filter((u) => !onTeam.has(String(u.id)));

  async function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = parseId(userId);
    if (parsed === null) {
      setError(choosing ? 'L’utilisateur est requis.' : USER_ID_MESSAGE);
      return;
    }
    setError(null);
    if (await onAdd(parsed, role)) setUserId('');
  }

  return (
    <form className="card pj-inline-form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}-t`}>
      <h3 id={`${id}-t`}>Ajouter un membre</h3>
      <div className="pj-inline-fields">
        <FormField id={`${id}-user`} label={choosing ? 'Utilisateur' : 'Identifiant de l’utilisateur'} error={error}>
          {choosing ? (
            <Select
              id={`${id}-user`}
              value={userId}
              empty="— Choisir —"
              options={candidates.map((u) => [String(u.id), userLabel(u)] as const)}
              onChange={(e) => setUserId(e.target.value)}
              {...errorAria(`${id}-user-error`, error)}
            />
          ) : (
            <input
              id={`${id}-user`}
              inputMode="numeric"
              value={userId}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${id}-help ${id}-user-error` : `${id}-help`}
              onChange={(e) => setUserId(e.target.value)}
            />
          )}
        </FormField>
        <FormField id={`${id}-role`} label="Rôle">
          <Select
            id={`${id}-role`}
            value={role}
            options={optionsOf(TEAM_ROLE_LABELS, TEAM_ROLES)}
            onChange={(e) => setRole(e.target.value as TeamRole)}
          />
        </FormField>
        <button type="submit" className="btn primary" disabled={busy}>
          {busy ? 'Ajout…' : 'Ajouter'}
        </button>
      </div>
      {!choosing && (
        <p id={`${id}-help`} className="muted small">
          La liste des utilisateurs est réservée aux administrateurs de l’organisation : saisissez l’identifiant
          numérique de l’utilisateur (il doit être membre de l’organisation).
        </p>
      )}
    </form>
  );
}
