import { useEffect, useId, useState, type FormEvent } from 'react';
import { useSignals } from '@preact/signals-react/runtime';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { errorAria, FormField } from '../../components/form-field.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { RowAction } from '../../components/row-action.tsx';
import { tenantRoleOf } from '../../lib/auth/roles.ts';
import { currentTenantId, session } from '../../lib/auth/session.ts';
import {
  addTeamMember,
  listTeam,
  listTenantUsers,
  removeTeamMember,
  updateProject,
  type Id,
  type TeamMember,
  type TeamRole,
  type TenantUser,
} from './projects-api.ts';
import { formatDateTime, label, parseId, TEAM_ROLE_LABELS, TEAM_ROLES, USER_ID_MESSAGE } from './project-rules.ts';
import { Empty, TabBody, useProjectActions, type TabProps } from './project-widgets.tsx';
import { useLoad } from './use-load.ts';

/** Only tenant administrators may read the tenant's user list (GET /api/admin/users/). */
function mayListUsers(): boolean {
  return tenantRoleOf(session.value?.profile, currentTenantId()) === 'admin';
}

/** Équipe: members with role and owner badge; managers add, change the role of, remove members and set the owner. */
export function TeamTab({ project, canManage, onChanged }: TabProps) {
  useSignals();
  const { state, reload, update } = useLoad(() => listTeam(project.id), `${project.id}|${currentTenantId() ?? ''}`);
  const { busy, notice, actionError, act } = useProjectActions();
  const [confirming, setConfirming] = useState<Id | null>(null);

  const replace = (member: TeamMember | null, id: Id) =>
    update((r) => ({
      ...r,
      data: {
        ...r.data,
        results: member
          ? r.data.results.some((m) => String(m.id) === String(id))
            ? r.data.results.map((m) => (String(m.id) === String(id) ? member : m))
            : [...r.data.results, member]
          : r.data.results.filter((m) => String(m.id) !== String(id)),
      },
    }));

  const changeRole = (m: TeamMember, role: TeamRole) =>
    act(
      `role-${m.id}`,
      () => addTeamMember(project.id, m.id, role),
      `Rôle de ${m.name} : ${TEAM_ROLE_LABELS[role]}.`,
      (saved) => (saved ? replace({ ...m, ...saved }, m.id) : undefined),
    );

  const remove = async (m: TeamMember) => {
    const ok = await act(`remove-${m.id}`, () => removeTeamMember(project.id, m.id), `${m.name} a quitté l’équipe.`);
    if (ok) {
      setConfirming(null);
      replace(null, m.id);
    }
  };

  const makeOwner = async (m: TeamMember) => {
    const ok = await act(
      `owner-${m.id}`,
      () => updateProject(project.id, { owner_id: m.id }),
      `${m.name} est désormais propriétaire du projet.`,
    );
    if (ok) {
      reload();
      onChanged();
    }
  };

  return (
    <div className="pj-tab">
      <ActionMessages notice={notice} error={actionError} />
      {canManage && (
        <AddMember
          members={state.status === 'ready' ? state.data.data.results : []}
          busy={busy === 'add'}
          onAdd={(userId, role) =>
            act(
              'add',
              () => addTeamMember(project.id, userId, role),
              'Membre ajouté à l’équipe.',
              () => reload(),
            )
          }
        />
      )}
      <TabBody state={state} loading="Chargement de l’équipe…">
        {(result) =>
          result.data.results.length === 0 ? (
            <Empty>Aucun membre dans l’équipe.</Empty>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <caption className="visually-hidden">Membres de l’équipe</caption>
                <thead>
                  <tr>
                    <th scope="col">Nom</th>
                    <th scope="col">Email</th>
                    <th scope="col">Rôle</th>
                    <th scope="col">Dernière activité</th>
                    {canManage && <th scope="col">Actions</th>}
                  </tr>
                </thead>
                <tbody>
                  {result.data.results.map((m) => (
                    <tr key={m.id} data-member-id={m.id}>
                      <th scope="row">
                        {m.name}
                        {m.is_owner && <span className="vm-badge ok pj-owner">Propriétaire</span>}
                      </th>
                      <td>{m.email || '—'}</td>
                      <td>
                        {canManage && !m.is_owner ? (
                          <select
                            aria-label={`Rôle de ${m.name}`}
                            value={m.role}
                            disabled={busy === `role-${m.id}`}
                            onChange={(e) => void changeRole(m, e.target.value as TeamRole)}
                          >
                            {TEAM_ROLES.map((r) => (
                              <option key={r} value={r}>
                                {TEAM_ROLE_LABELS[r]}
                              </option>
                            ))}
                          </select>
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
                              confirming={confirming === m.id}
                              busy={busy === `remove-${m.id}`}
                              onAsk={() => setConfirming(m.id)}
                              onConfirm={() => void remove(m)}
                              onCancel={() => setConfirming(null)}
                            >
                              <RowAction
                                action="owner"
                                text="Rendre propriétaire"
                                name={m.name}
                                disabled={busy === `owner-${m.id}`}
                                onClick={() => void makeOwner(m)}
                              />
                            </DeletableRowActions>
                          )}
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
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
  const [users, setUsers] = useState<{ list: TenantUser[]; readable: boolean } | null>(null);
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState<TeamRole>('MEMBER');
  const [error, setError] = useState<string | null>(null);
  const canList = mayListUsers();

  useEffect(() => {
    if (!canList) return;
    let live = true;
    void listTenantUsers().then(({ users: list, readable }) => live && setUsers({ list, readable }));
    return () => {
      live = false;
    };
  }, [canList]);

  const choosing = canList && users?.readable === true;
  const onTeam = new Set(members.map((m) => String(m.id)));
  const candidates = (users?.list ?? []).filter((u) => !onTeam.has(String(u.id)));

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
            <select
              id={`${id}-user`}
              value={userId}
              onChange={(e) => setUserId(e.target.value)}
              {...errorAria(`${id}-user-error`, error)}
            >
              <option value="">— Choisir —</option>
              {candidates.map((u) => (
                <option key={u.id} value={String(u.id)}>
                  {userLabel(u)}
                </option>
              ))}
            </select>
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
          <select id={`${id}-role`} value={role} onChange={(e) => setRole(e.target.value as TeamRole)}>
            {TEAM_ROLES.map((r) => (
              <option key={r} value={r}>
                {TEAM_ROLE_LABELS[r]}
              </option>
            ))}
          </select>
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
