import { apiRequest, apiRequestWithOrigin, ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { UNEXPECTED_ERROR } from '../../lib/error-message.ts';
import { kvGet, kvSet } from '../../lib/storage.ts';
import { currentTenantId, session } from '../../lib/auth/session.ts';
import { roleUpdatePayload } from '../../lib/auth/roles.ts';
import { ADMIN_USERS_CACHE_KEY } from './users-local.ts';

/** One row of the user list (spec §3 user-list sample plus last_login). */
export interface AdminUser {
  id: number | string;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  is_active: boolean;
  date_joined?: string;
  role: string;
  is_staff?: boolean;
  is_superuser?: boolean;
  last_login?: string | null;
}

export interface UserList {
  users: AdminUser[];
  count: number;
  origin: DataOrigin;
  /** Why the live list is not shown (the first failure), when it is not. */
  error?: string;
}

/**
 * spec §7: the list paths, tried in order (the spec's /api/accounts/users/ variant normalises to /accounts/users/, so it
 * is not sent twice).
 */
export const USER_LIST_PATHS = ['/admin/users/', '/users/', '/accounts/users/', '/accounts/admin/users/'] as const;

/** spec §6: the message of a 403 on the user list. */
export const USERS_FORBIDDEN = "Vous n'avez pas les autorisations nécessaires pour accéder à cette ressource";
/** spec §8 delete messages. */
export const DELETE_MESSAGES = {
  denied: "Vous n'êtes pas authentifié ou n'avez pas les droits pour supprimer cet utilisateur.",
  noToken: "Aucun token d'authentification trouvé. Veuillez vous reconnecter.",
} as const;

/** spec §8: shown, clearly marked, when the list cannot be read and nothing was kept. */
export const SAMPLE_USERS: readonly AdminUser[] = [
  {
    id: 'exemple-1',
    username: 'exemple.admin',
    email: 'admin@exemple.fr',
    first_name: 'Alice',
    last_name: 'Exemple',
    is_active: true,
    date_joined: '2025-01-15T09:00:00.000Z',
    role: 'admin',
    is_staff: true,
    is_superuser: false,
    last_login: null,
  },
  {
    id: 'exemple-2',
    username: 'exemple.analyste',
    email: 'analyste@exemple.fr',
    first_name: 'Bruno',
    last_name: 'Exemple',
    is_active: true,
    date_joined: '2025-02-03T10:30:00.000Z',
    role: 'user',
    is_staff: false,
    is_superuser: false,
    last_login: null,
  },
];

interface StoredUsers {
  owner: string;
  storedAt: number;
  users: AdminUser[];
  count: number;
}

/** The list belongs to one user looking at one tenant. */
const ownerKey = () => `${String(session.value?.profile.id ?? '')}:${currentTenantId() ?? ''}`;

function listOf(raw: unknown): { users: AdminUser[]; count: number } {
  if (Array.isArray(raw)) return { users: raw as AdminUser[], count: raw.length };
  if (raw && typeof raw === 'object' && Array.isArray((raw as { results?: unknown }).results)) {
    const page = raw as { results: AdminUser[]; count?: unknown };
    return { users: page.results, count: typeof page.count === 'number' ? page.count : page.results.length };
  }
  throw new ApiError(200, 'Format de réponse non reconnu');
}

/**
 * spec §7/§8 user list: each path in turn; a 403 is the answer (thrown with the spec §6 message), anything else falls back to
 * the list kept from the last read for this user and tenant, then to sample users.
 */
export async function fetchUsers(tenantId?: string): Promise<UserList> {
  let first: ApiError | undefined;
  for (const path of USER_LIST_PATHS) {
    try {
      const { data, origin } = await apiRequestWithOrigin<unknown>(path, {
        query: { page: 1, page_size: 100 },
        allowForbidden: true,
        ...(tenantId ? { tenantId } : {}),
      });
      const list = listOf(data);
      // The kept copy is the current tenant's; another tenant's list (a superuser's visit) is not kept.
      if (origin.source !== 'sample' && !tenantId) {
        const stored: StoredUsers = { owner: ownerKey(), storedAt: Date.now(), ...list };
        await kvSet(ADMIN_USERS_CACHE_KEY, stored).catch(() => undefined);
      }
      return { ...list, origin };
    } catch (err) {
      if (err instanceof ApiError && err.status === 403) throw new ApiError(403, USERS_FORBIDDEN, err.data);
      if (err instanceof ApiError && err.status === 401) throw err;
      first ??= err instanceof ApiError ? err : new ApiError(0, UNEXPECTED_ERROR);
    }
  }
  const error = first?.message ?? UNEXPECTED_ERROR;
  const stored = await kvGet<StoredUsers>(ADMIN_USERS_CACHE_KEY).catch(() => undefined);
  if (stored && stored.owner === ownerKey() && Array.isArray(stored.users)) {
    return { users: stored.users, count: stored.count, origin: { source: 'cache', storedAt: stored.storedAt }, error };
  }
  return { users: [...SAMPLE_USERS], count: SAMPLE_USERS.length, origin: { source: 'sample' }, error };
}

function serverDetail(err: ApiError): string | undefined {
  const d = err.data;
  return d && typeof d === 'object' && typeof (d as { detail?: unknown }).detail === 'string'
    ? (d as { detail: string }).detail
    : undefined;
}

/** spec §7: one account's paths, tried in order: /admin/users/{id}/, then /users/{id}/. */
export function userPaths(id: AdminUser['id']): [string, string] {
  const key = encodeURIComponent(String(id));
  return [`/admin/users/${key}/`, `/users/${key}/`];
}

/** A path this backend does not serve (404, 405): the next one of the spec §7 chain is tried. */
const unknownPath = (err: unknown) => err instanceof ApiError && (err.status === 404 || err.status === 405);

/**
 * Calls each path in turn until one is served: any answer other than 404/405 (a refusal, a field error) is the
 * backend's word and is thrown as it is; when none is served, the first failure is.
 */
async function firstServed<T>(paths: readonly string[], call: (path: string) => Promise<T>): Promise<T> {
  let first: ApiError | undefined;
  for (const path of paths) {
    try {
      return await call(path);
    } catch (err) {
      if (!(err instanceof ApiError) || !unknownPath(err)) throw err;
      first ??= err;
    }
  }
  throw first ?? new ApiError(0, UNEXPECTED_ERROR);
}

/** The tenant header of a superuser administering another tenant (`?tenant=` on the screen). */
const inTenant = (tenantId: string | undefined) => (tenantId ? { tenantId } : {});

/** spec §7/§8 delete: /admin/users/{id}/, then /users/{id}/ when the first does not know the path; French messages. */
export async function deleteUser(id: AdminUser['id'], tenantId?: string): Promise<void> {
  if (!session.value?.tokens.access_token) throw new ApiError(401, DELETE_MESSAGES.noToken);
  try {
    await firstServed(userPaths(id), (path) =>
      apiRequest<unknown>(path, { method: 'DELETE', allowForbidden: true, ...inTenant(tenantId) }),
    );
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403))
      throw new ApiError(err.status, serverDetail(err) ?? DELETE_MESSAGES.denied, err.data);
    throw err;
  }
  // The kept list must not bring the user back.
  const stored = await kvGet<StoredUsers>(ADMIN_USERS_CACHE_KEY).catch(() => undefined);
  if (stored?.users) {
    const users = stored.users.filter((u) => String(u.id) !== String(id));
    await kvSet(ADMIN_USERS_CACHE_KEY, { ...stored, users, count: Math.max(0, stored.count - 1) }).catch(
      () => undefined,
    );
  }
}

/** spec §7 GET by id: one account as the server has it now (/admin/users/{id}/, then /users/{id}/). */
export function fetchUser(id: AdminUser['id'], tenantId?: string): Promise<AdminUser> {
  return firstServed(userPaths(id), (path) =>
    apiRequest<AdminUser>(path, { allowForbidden: true, ...inTenant(tenantId) }),
  );
}

export type NewUser = {
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  password: string;
  confirm_password: string;
  role: string;
};

/**
 * Creates an account in the current tenant, or in `tenantId` (superusers), on the spec §7 list paths in turn;
 * field errors come back in ApiError.fields.
 */
export function createUser(body: NewUser, tenantId?: string): Promise<AdminUser> {
  return firstServed(USER_LIST_PATHS, (path) =>
    apiRequest<AdminUser>(path, { method: 'POST', body, allowForbidden: true, ...inTenant(tenantId) }),
  );
}

/** What the edit form changes: names, address, the role in the tenant, whether the account may sign in. */
export type UserChanges = Pick<AdminUser, 'email' | 'first_name' | 'last_name' | 'role' | 'is_active'>;

/** A PATCH body: some of the form's fields, and with a role change by a superuser the spec §6 flags. */
export type UserPatch = Partial<UserChanges> & { is_superuser?: boolean; is_staff?: boolean };

/** spec §7 PATCH by id (/admin/users/{id}/, then /users/{id}/), in the current tenant or in `tenantId`. */
export function updateUser(id: AdminUser['id'], changes: UserPatch, tenantId?: string): Promise<AdminUser> {
  return firstServed(userPaths(id), (path) =>
    apiRequest<AdminUser>(path, { method: 'PATCH', body: changes, allowForbidden: true, ...inTenant(tenantId) }),
  );
}

/**
 * What an edit sends: only what changed, and with a role change by a superuser the spec §6 payload (role,
 * is_superuser and is_staff, both true for admin). A tenant's own admin sends the role alone: the platform flags
 * are no tenant's to give, and the server refuses them from anyone but a superuser.
 */
export function editPayload(initial: UserChanges, draft: UserChanges, platformFlags: boolean): UserPatch {
  const changes = Object.fromEntries(
    Object.entries(draft).filter(([k, v]) => v !== initial[k as keyof UserChanges]),
  ) as UserPatch;
  return changes.role !== undefined && platformFlags ? { ...changes, ...roleUpdatePayload(changes.role) } : changes;
}
