import { Fragment, useState, type ReactNode } from 'react';
import { useSearch } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { optionsOf } from '../../components/select.tsx';
import { fieldErrorsOf, useForm, type FieldErrors, type Form } from '../../lib/use-form.ts';
import { useResource } from '../../lib/use-resource.ts';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { ActionMessages, EmptyState } from '../../components/list-state.tsx';
import { useRowActions } from '../../components/use-row-actions.ts';
import { session } from '../../lib/auth/session.ts';
import { may } from '../../lib/auth/can-write.ts';
import { createAdminAccount, FormError, type AdminInput } from '../../lib/auth/account.ts';
import { ROLE_LABELS, roleLabel } from '../../lib/auth/roles.ts';
import { isSuperuser } from '../../lib/auth/admin-access.ts';
import { SelectField, TextField } from '../../components/form-field.tsx';
import {
  createUser,
  deleteUser,
  editPayload,
  fetchUser,
  fetchUsers,
  updateUser,
  type AdminUser,
  type NewUser,
  type UserChanges,
} from './users-api.ts';
import { dateFormat } from '../../lib/format.ts';

/** The roles a membership can hold (a guest is no member). */
const { guest: _guest, ...MEMBERSHIP_ROLE_LABELS } = ROLE_LABELS;

const DATE = dateFormat({ dateStyle: 'short', timeStyle: 'short' });

/**
 * User administration of the current tenant: the list with the spec §8 fallbacks, each account's details read from
 * the server (spec §7 GET by id), creation, edition with the role change (spec §6 payload) and deletion with the
 * spec §8 messages.
 */
export function UsersPage() {
  useSignals();
  const me = session.value?.profile.id;
  // ?tenant= lets a superuser administer another tenant's members (from the tenants screen).
  const params = new URLSearchParams(useSearch());
  const tenantParam = params.get('tenant') ?? undefined;
  const tenantName = params.get('name') ?? undefined;
  // Bumped when an account is added elsewhere than in this list's tenant view (an administrator account).
  const [version, setVersion] = useState(0);
  const users = useResource(async () => ({ data: await fetchUsers(tenantParam) }), [tenantParam ?? null, version]);
  const [confirming, setConfirming] = useState<AdminUser['id'] | null>(null);
  const [editing, setEditing] = useState<AdminUser['id'] | null>(null);
  const [shown, setShown] = useState<AdminUser['id'] | null>(null);
  const { busy, notice, setNotice, actionError, run } = useRowActions<AdminUser['id']>();

  const list = users.data ?? null;
  const sample = list?.origin.source === 'sample';
  // spec §6: each action by its permission (an admin has them all); sample rows are fictional: nothing to change.
  const mayAdd = !sample && may('add_user');
  const mayChange = !sample && may('change_user');
  const mayDelete = !sample && may('delete_user');
  // Sample rows have nothing behind them to read: no details, no action.
  const actions = !sample;
  const mayCreateAdmin = !sample && isSuperuser(session.value?.profile);

  const remove = (user: AdminUser) =>
    run(user.id, async () => {
      await deleteUser(user.id, tenantParam);
      setConfirming(null);
      users.update((l) => ({
        ...l,
        users: l.users.filter((u) => u.id !== user.id),
        count: Math.max(0, l.count - 1),
      }));
      setNotice(`Utilisateur « ${user.username} » supprimé.`);
    });

  const edited = (user: AdminUser) => {
    users.update((l) => ({ ...l, users: l.users.map((u) => (String(u.id) === String(user.id) ? user : u)) }));
    setEditing(null);
    setNotice(`Utilisateur « ${user.username} » modifié.`);
  };

  const added = (user: AdminUser) => {
    users.update((l) => ({ ...l, users: [...l.users, user], count: l.count + 1 }));
    setNotice(`Utilisateur « ${user.username} » créé.`);
  };

  const adminAdded = (username: string) => {
    setNotice(`Compte administrateur « ${username} » créé.`);
    setVersion((v) => v + 1);
  };

  return (
    <section className="admin-page">
      <h1>Utilisateurs</h1>
      {tenantParam && <p className="muted">Organisation : {tenantName ?? tenantParam}</p>}
      {list && (mayAdd || mayCreateAdmin) && (
        <>
          {mayAdd && <NewUserForm tenantId={tenantParam} onCreated={added} />}
          {mayCreateAdmin && <NewAdminForm onCreated={adminAdded} />}
        </>
      )}
      {users.loading && <p role="status">Chargement…</p>}
      <ActionMessages error={users.state.status === 'error' ? users.state.message : null} />
      <ActionMessages notice={notice} error={actionError} />
      {list && (
        <>
          {list.error && (
            <p className="error" role="alert">
              Impossible de charger la liste des utilisateurs : {list.error}
              {sample
                ? ' — des utilisateurs d’exemple sont affichés.'
                : ' — la dernière liste enregistrée sur cet appareil est affichée.'}
            </p>
          )}
          <DataOriginNote origin={list.origin} />
          <p className="muted">{list.count === 1 ? '1 utilisateur' : `${list.count} utilisateurs`}</p>
          {list.users.length === 0 ? (
            <EmptyState>Aucun utilisateur.</EmptyState>
          ) : (
            <DataTable
              className={sample ? 'sample' : undefined}
              caption={sample && 'Exemple — ces utilisateurs ne sont pas réels'}
              captionClass=""
              headers={['Nom d’utilisateur', 'Nom', 'Email', 'Rôle', 'Actif', 'Dernière connexion']}
              actions={actions}
            >
              {list.users.map((u) =>
                editing === u.id ? (
                  <tr key={u.id} data-user-id={u.id}>
                    <td colSpan={actions ? 7 : 6}>
                      <EditUserForm
                        user={u}
                        tenantId={tenantParam}
                        self={String(u.id) === String(me)}
                        onSaved={edited}
                        onCancel={() => setEditing(null)}
                      />
                    </td>
                  </tr>
                ) : (
                  <Fragment key={u.id}>
                    <tr data-user-id={u.id}>
                      <td>{u.username}</td>
                      <td>{[u.first_name, u.last_name].filter(Boolean).join(' ') || '—'}</td>
                      <td>{u.email}</td>
                      <td>{roleLabel(u.role)}</td>
                      <td>{u.is_active ? 'Oui' : 'Non'}</td>
                      <td>{u.last_login ? DATE.format(new Date(u.last_login)) : 'Jamais'}</td>
                      {actions && (
                        <td>
                          <button
                            type="button"
                            className="btn small secondary"
                            aria-label={`Détails : ${u.username}`}
                            aria-expanded={shown === u.id}
                            onClick={() => setShown(shown === u.id ? null : u.id)}
                          >
                            Détails
                          </button>{' '}
                          {mayChange && (
                            <button
                              type="button"
                              className="btn small secondary"
                              aria-label={`Modifier : ${u.username}`}
                              onClick={() => {
                                setShown(null);
                                setEditing(u.id);
                              }}
                            >
                              Modifier
                            </button>
                          )}{' '}
                          {mayDelete && String(u.id) !== String(me) && (
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
                    {shown === u.id && (
                      <tr className="admin-detail-row" data-user-detail={u.id}>
                        <td colSpan={7}>
                          <UserDetail id={u.id} tenantId={tenantParam} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ),
              )}
            </DataTable>
          )}
        </>
      )}
    </section>
  );
}

const yesNo = (v: boolean | undefined) => (v === undefined ? '—' : v ? 'Oui' : 'Non');
const when = (iso: string | null | undefined, never: string) => (iso ? DATE.format(new Date(iso)) : never);

/** One account as the server has it now (spec §7 GET /admin/users/{id}/, then /users/{id}/). */
function UserDetail({ id, tenantId }: { id: AdminUser['id']; tenantId: string | undefined }) {
  const read = useResource(async () => ({ data: await fetchUser(id, tenantId) }), [String(id), tenantId ?? null]);
  const u = read.data;
  // Inside a table wider than its frame, the details stay in view however far the frame is scrolled.
  if (read.loading)
    return (
      <p className="admin-sticky" role="status">
        Chargement du compte…
      </p>
    );
  if (!u)
    return (
      <p className="admin-sticky error" role="alert">
        Impossible de lire ce compte : {read.error}
      </p>
    );
  return (
    <dl className="admin-dl admin-sticky">
      <dt>Identifiant</dt>
      <dd>{String(u.id)}</dd>
      <dt>Nom d’utilisateur</dt>
      <dd>{u.username}</dd>
      <dt>Nom</dt>
      <dd>{[u.first_name, u.last_name].filter(Boolean).join(' ') || '—'}</dd>
      <dt>Email</dt>
      <dd>{u.email || '—'}</dd>
      <dt>Rôle dans l’organisation</dt>
      <dd>{roleLabel(u.role)}</dd>
      <dt>Superutilisateur</dt>
      <dd>{yesNo(u.is_superuser)}</dd>
      <dt>Staff</dt>
      <dd>{yesNo(u.is_staff)}</dd>
      <dt>Actif</dt>
      <dd>{yesNo(u.is_active)}</dd>
      <dt>Inscrit le</dt>
      <dd>{when(u.date_joined, '—')}</dd>
      <dt>Dernière connexion</dt>
      <dd>{when(u.last_login, 'Jamais')}</dd>
    </dl>
  );
}

/** Changes one account in place: names, address, role in the tenant, active or not (not one's own role or access). */
function EditUserForm({
  user,
  tenantId,
  self,
  onSaved,
  onCancel,
}: {
  user: AdminUser;
  tenantId: string | undefined;
  self: boolean;
  onSaved: (u: AdminUser) => void;
  onCancel: () => void;
}) {
  const initial: UserChanges = {
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    role: user.role in MEMBERSHIP_ROLE_LABELS ? user.role : 'user',
    is_active: user.is_active,
  };
  const form = useForm<UserChanges>(initial, { id: `edit-user-${user.id}` });
  const platformFlags = isSuperuser(session.value?.profile);
  const send = async (draft: UserChanges) => {
    // Only what changed: an unchanged role or state is not the admin's decision to record.
    const changes = editPayload(initial, draft, platformFlags);
    onSaved(Object.keys(changes).length === 0 ? user : await updateUser(user.id, changes, tenantId));
  };
  return (
    <form
      className="vm-form"
      aria-label={`Modifier l’utilisateur ${user.username}`}
      onSubmit={form.onSubmit(send, { fieldErrors: (err) => fieldErrorsOf(err, { join: true }) })}
    >
      <h2>Modifier « {user.username} »</h2>
      <TextField form={form} name="email" label="E-mail *" type="email" autoComplete="off" />
      <TextField form={form} name="first_name" label="Prénom" autoComplete="off" />
      <TextField form={form} name="last_name" label="Nom" autoComplete="off" />
      {self ? (
        <p className="muted">Votre propre rôle et l’accès à votre compte se changent par un autre administrateur.</p>
      ) : (
        <>
          <SelectField form={form} name="role" label="Rôle" options={optionsOf(MEMBERSHIP_ROLE_LABELS)} />
          {platformFlags &&
            form.values.role !== initial.role &&
            (form.values.role === 'admin' || user.is_superuser || user.is_staff) && (
              <p className="muted vm-wide" role="note">
                {form.values.role === 'admin'
                  ? 'Administrateur : le compte devient aussi superutilisateur et staff, sur toute la plateforme.'
                  : 'Ce rôle retire au compte les droits superutilisateur et staff de la plateforme.'}
              </p>
            )}
          <label className="vm-check">
            <input
              type="checkbox"
              checked={form.values.is_active}
              onChange={(e) => form.set('is_active', e.target.checked)}
            />{' '}
            Compte actif (peut se connecter)
          </label>
        </>
      )}
      <ActionMessages error={form.error} />
      <p>
        <button type="submit" className="btn" disabled={form.submitting}>
          Enregistrer
        </button>{' '}
        <button type="button" className="btn secondary" onClick={onCancel}>
          Annuler
        </button>
      </p>
    </form>
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

/** A creation form behind its button (`title` names both): sent, then emptied and closed once the account exists. */
function CreationForm<V extends object>({
  id,
  title,
  buttonClass,
  submitLabel,
  empty,
  create,
  fieldErrors,
  children,
}: {
  id: string;
  title: string;
  buttonClass: string;
  submitLabel: string;
  empty: V;
  create: (draft: V) => Promise<void>;
  fieldErrors: (err: unknown) => FieldErrors;
  /** The form's body, given a text field maker (label; `type` password asks for a new password). */
  children: (field: (name: keyof V & string, label: string, type?: string) => ReactNode, form: Form<V>) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const form = useForm<V>(empty, { id });

  if (!open)
    return (
      <p>
        <button type="button" className={buttonClass} onClick={() => setOpen(true)}>
          {title}
        </button>
      </p>
    );

  const send = async (draft: V) => {
    await create(draft);
    form.setValues(empty);
    setOpen(false);
  };
  const field = (name: keyof V & string, label: string, type = 'text') => (
    <TextField
      form={form}
      name={name}
      label={label}
      type={type}
      autoComplete={type === 'password' ? 'new-password' : 'off'}
    />
  );
  return (
    <form className="card vm-form" aria-label={title} onSubmit={form.onSubmit(send, { fieldErrors })}>
      <h2>{title}</h2>
      {children(field, form)}
      <ActionMessages error={form.error} />
      <p>
        <button type="submit" className="btn" disabled={form.submitting}>
          {submitLabel}
        </button>{' '}
        <button type="button" className="btn secondary" onClick={() => setOpen(false)}>
          Annuler
        </button>
      </p>
    </form>
  );
}

/** « Nouvel utilisateur »: an account in the tenant shown, with the server's field messages beside each field. */
function NewUserForm({ tenantId, onCreated }: { tenantId: string | undefined; onCreated: (u: AdminUser) => void }) {
  return (
    <CreationForm
      id="new-user"
      title="Nouvel utilisateur"
      buttonClass="btn"
      submitLabel="Créer l’utilisateur"
      empty={EMPTY}
      create={async (draft) => onCreated(await createUser(draft, tenantId))}
      fieldErrors={(err) => fieldErrorsOf(err, { join: true })}
    >
      {(field, form) => (
        <>
          {field('username', "Nom d'utilisateur *")}
          {field('email', 'E-mail *', 'email')}
          {field('first_name', 'Prénom')}
          {field('last_name', 'Nom')}
          {field('password', 'Mot de passe *', 'password')}
          {field('confirm_password', 'Confirmation du mot de passe *', 'password')}
          <SelectField form={form} name="role" label="Rôle" options={optionsOf(MEMBERSHIP_ROLE_LABELS)} />
        </>
      )}
    </CreationForm>
  );
}

const NO_ADMIN: AdminInput = { username: '', email: '', password: '', first_name: '', last_name: '' };

/**
 * « Nouveau compte administrateur » (superusers; spec §5, §7 POST /accounts/admin/create/): a platform
 * administrator, made a member of the current organisation. The spec §8 messages on failure.
 */
function NewAdminForm({ onCreated }: { onCreated: (username: string) => void }) {
  return (
    <CreationForm
      id="new-admin"
      title="Nouveau compte administrateur"
      buttonClass="btn secondary"
      submitLabel="Créer le compte administrateur"
      empty={NO_ADMIN}
      create={async (draft) => onCreated((await createAdminAccount(draft)).username)}
      fieldErrors={(err) => (err instanceof FormError ? err.fields : {})}
    >
      {(field) => (
        <>
          <p className="muted">
            Un administrateur a tous les droits sur toutes les organisations (superutilisateur). Il est ajouté à
            l’organisation courante.
          </p>
          {field('username', "Nom d'utilisateur *")}
          {field('email', 'E-mail *', 'email')}
          {field('first_name', 'Prénom')}
          {field('last_name', 'Nom')}
          {field('password', 'Mot de passe * (8 caractères au moins)', 'password')}
        </>
      )}
    </CreationForm>
  );
}

export default UsersPage;
