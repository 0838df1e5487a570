import { useEffect, useState, type FormEvent } from 'react';
import { useSearch } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { ApiError } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { ActionMessages, EmptyState } from '../../components/list-state.tsx';
import { useRowActions } from '../../components/use-row-actions.ts';
import { session } from '../../lib/auth/session.ts';
import { FormField, errorAria } from '../../components/form-field.tsx';
import { createUser, deleteUser, fetchUsers, type AdminUser, type NewUser, type UserList } from './users-api.ts';

const ROLE_LABELS: Record<string, string> = {
  admin: 'Administrateur',
  manager: 'Responsable',
  user: 'Utilisateur',
  readonly: 'Lecture seule',
};

const DATE = new Intl.DateTimeFormat('fr-FR', { dateStyle: 'short', timeStyle: 'short' });

type State = { kind: 'loading' } | { kind: 'ok'; list: UserList } | { kind: 'failed'; error: string };

/** User administration of the current tenant: the list with the §8 fallbacks, and deletion with the §8 messages. */
export function UsersPage() {
  useSignals();
  const me = session.value?.profile.id;
  // ?tenant= lets a superuser administer another tenant's members (from the tenants screen).
  const tenantParam = new URLSearchParams(useSearch()).get('tenant') ?? undefined;
  const tenantName = new URLSearchParams(useSearch()).get('name') ?? undefined;
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [confirming, setConfirming] = useState<AdminUser['id'] | null>(null);
  const { busy, notice, setNotice, actionError, run } = useRowActions<AdminUser['id']>();

  useEffect(() => {
    let live = true;
    fetchUsers(tenantParam).then(
      (list) => live && setState({ kind: 'ok', list }),
      (err: unknown) =>
        live && setState({ kind: 'failed', error: err instanceof ApiError ? err.message : 'Erreur inattendue.' }),
    );
    return () => {
      live = false;
    };
  }, [tenantParam]);

  const list = state.kind === 'ok' ? state.list : null;
  // Sample rows are fictional: nothing to delete.
  const deletable = list?.origin.source !== 'sample';

  const remove = (user: AdminUser) =>
    run(user.id, async () => {
      await deleteUser(user.id);
      setConfirming(null);
      setState((s) =>
        s.kind === 'ok'
          ? {
              kind: 'ok',
              list: {
                ...s.list,
                users: s.list.users.filter((u) => u.id !== user.id),
                count: Math.max(0, s.list.count - 1),
              },
            }
          : s,
      );
      setNotice(`Utilisateur « ${user.username} » supprimé.`);
    });

  const added = (user: AdminUser) => {
    setState((s) =>
      s.kind === 'ok'
        ? { kind: 'ok', list: { ...s.list, users: [...s.list.users, user], count: s.list.count + 1 } }
        : s,
    );
    setNotice(`Utilisateur « ${user.username} » créé.`);
  };

  return (
    <section className="admin-page">
      <h1>Utilisateurs</h1>
      {tenantParam && <p className="muted">Organisation : {tenantName ?? tenantParam}</p>}
      {deletable && list && <NewUserForm tenantId={tenantParam} onCreated={added} />}
      {state.kind === 'loading' && <p role="status">Chargement…</p>}
      {state.kind === 'failed' && (
        <p className="error" role="alert">
          {state.error}
        </p>
      )}
      <ActionMessages notice={notice} error={actionError} />
      {list && (
        <>
          {list.error && (
            <p className="error" role="alert">
              Impossible de charger la liste des utilisateurs : {list.error}
              {list.origin.source === 'sample'
                ? ' — des utilisateurs d’exemple sont affichés.'
                : ' — la dernière liste enregistrée sur cet appareil est affichée.'}
            </p>
          )}
          <DataOriginNote origin={list.origin} />
          <p className="muted">{list.count === 1 ? '1 utilisateur' : `${list.count} utilisateurs`}</p>
          {list.users.length === 0 ? (
            <EmptyState>Aucun utilisateur.</EmptyState>
          ) : (
            <div className="table-wrap">
              <table className={`table${list.origin.source === 'sample' ? ' sample' : ''}`}>
                {list.origin.source === 'sample' && <caption>Exemple — ces utilisateurs ne sont pas réels</caption>}
                <thead>
                  <tr>
                    <th scope="col">Nom d’utilisateur</th>
                    <th scope="col">Nom</th>
                    <th scope="col">Email</th>
                    <th scope="col">Rôle</th>
                    <th scope="col">Actif</th>
                    <th scope="col">Dernière connexion</th>
                    {deletable && <th scope="col">Actions</th>}
                  </tr>
                </thead>
                <tbody>
                  {list.users.map((u) => (
                    <tr key={u.id} data-user-id={u.id}>
                      <td>{u.username}</td>
                      <td>{[u.first_name, u.last_name].filter(Boolean).join(' ') || '—'}</td>
                      <td>{u.email}</td>
                      <td>{ROLE_LABELS[u.role] ?? u.role}</td>
                      <td>{u.is_active ? 'Oui' : 'Non'}</td>
                      <td>{u.last_login ? DATE.format(new Date(u.last_login)) : 'Jamais'}</td>
                      {deletable && (
                        <td>
                          {String(u.id) !== String(me) && (
                            <DeletableRowActions
                              name={u.username}
                              question={`Supprimer ${u.username} ?`}
                              confirming={confirming === u.id}
                              busy={busy === u.id}
                              onAsk={() => setConfirming(u.id)}
                              onConfirm={() => void remove(u)}
                              onCancel={() => setConfirming(null)}
                            />
                          )}
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}

const EMPTY: NewUser = {
  username: '',
  email: '',
  first_name: '',
  last_name: '',
  password: '',
  confirm_password: '',
  role: 'user',
};

/** « Nouvel utilisateur »: an account in the tenant shown, with the server's field messages beside each field. */
function NewUserForm({ tenantId, onCreated }: { tenantId: string | undefined; onCreated: (u: AdminUser) => void }) {
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<NewUser>(EMPTY);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  if (!open)
    return (
      <p>
        <button type="button" className="btn" onClick={() => setOpen(true)}>
          Nouvel utilisateur
        </button>
      </p>
    );

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setErrors({});
    setFailure(null);
    try {
      onCreated(await createUser(draft, tenantId));
      setDraft(EMPTY);
      setOpen(false);
    } catch (err) {
      const fields = err instanceof ApiError ? err.fields : {};
      setErrors(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.join(' ')])));
      setFailure(err instanceof ApiError ? err.message : 'Erreur inattendue.');
    } finally {
      setSaving(false);
    }
  };
  const field = (name: keyof NewUser, label: string, type = 'text') => (
    <FormField id={`new-user-${name}`} label={label} error={errors[name]}>
      <input
        id={`new-user-${name}`}
        type={type}
        value={draft[name]}
        autoComplete={type === 'password' ? 'new-password' : 'off'}
        onChange={(e) => setDraft({ ...draft, [name]: e.target.value })}
        {...errorAria(`new-user-${name}-error`, errors[name])}
      />
    </FormField>
  );
  return (
    <form className="card vm-form" aria-label="Nouvel utilisateur" onSubmit={(e) => void submit(e)}>
      <h2>Nouvel utilisateur</h2>
      {field('username', "Nom d'utilisateur *")}
      {field('email', 'E-mail *', 'email')}
      {field('first_name', 'Prénom')}
      {field('last_name', 'Nom')}
      {field('password', 'Mot de passe *', 'password')}
      {field('confirm_password', 'Confirmation du mot de passe *', 'password')}
      <FormField id="new-user-role" label="Rôle" error={errors.role}>
        <select id="new-user-role" value={draft.role} onChange={(e) => setDraft({ ...draft, role: e.target.value })}>
          {Object.entries(ROLE_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </FormField>
      {failure && (
        <p className="error" role="alert">
          {failure}
        </p>
      )}
      <p>
        <button type="submit" className="btn" disabled={saving}>
          Créer l’utilisateur
        </button>{' '}
        <button type="button" className="btn secondary" onClick={() => setOpen(false)}>
          Annuler
        </button>
      </p>
    </form>
  );
}

export default UsersPage;
