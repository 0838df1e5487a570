import { randomUUID } from 'node:crypto';
import { PLATFORM_WRITES } from '../db/schema/cluster.ts';
import type { Database } from '../db/client.ts';
import { UsersRepository, type SignedInState } from '../repositories/users.ts';

/**
 * When a request's signed-in state may come from memory: 'busy' (default) while the database's connections are all
 * taken, so a crowd costs no round trip per answer and a quiet process reads every state fresh; 'always'; 'off'.
 */
export type KeptSignInMode = 'busy' | 'always' | 'off';
export const KEPT_SIGN_IN_MODES: readonly KeptSignInMode[] = ['busy', 'always', 'off'];

export interface KeptSignInOptions {
  mode?: KeptSignInMode;
  /** True while the database has no free connection (mode 'busy'). */
  busy?: () => boolean;
  /** A safety net: a state older than this is read again whatever was heard. */
  maxAgeMs?: number;
  maxEntries?: number;
  now?: () => number;
}

interface Kept {
  state: Omit<SignedInState, 'versions'>;
  at: number;
}

/**
 * The signed-in states (user, session, memberships) and the data versions of migration 0019, kept in this process
 * and forgotten as soon as the database says they changed (LISTEN, migration 0023). Served only while the process
 * listens: when the listening connection drops, everything kept is forgotten and every state is read again until it
 * listens anew (notices sent meanwhile are lost). A state read from the database while a change was heard is used
 * but not kept (it may predate the change); versions only ever grow. A write's answer leaves once this process has
 * heard every change committed before it (`settle`), so nobody reads here older than what they just wrote; another
 * process hears it when its notice arrives, within milliseconds. A state is read again after `maxAgeMs` whatever
 * was heard, in case a connection died without saying so.
 */
export class KeptSignIn {
  readonly #states = new Map<number, Map<string, Kept>>();
  readonly #versions = new Map<string, number>();
  /** Every version heard since listening began, known or not (a read's versions are raised to them). */
  readonly #heard = new Map<string, number>();
  readonly #markers = new Map<string, () => void>();
  /** Per user, a stamp renewed whenever their notifications change: the version of their kept notification lists. */
  readonly #inbox = new Map<number, number>();
  #stamps = 0;
  #entries = 0;
  #generation = 0;
  #listening = false;
  readonly #mode: KeptSignInMode;
  readonly #busy: () => boolean;
  readonly #maxAgeMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  /** Reads in progress, per user and session, with the generation they began under. */
  readonly #reading = new Map<string, { generation: number; answer: Promise<SignedInState | undefined> }>();
  /** Answers served from memory, read from the database, and sharing a read in progress (the bench and tests read them). */
  readonly counts = { kept: 0, read: 0, shared: 0 };

  constructor(
    private readonly read: (userId: number, sessionId: string | undefined) => Promise<SignedInState | undefined>,
    opts: KeptSignInOptions = {},
  ) {
    this.#mode = opts.mode ?? 'busy';
    this.#busy = opts.busy ?? (() => false);
    this.#maxAgeMs = opts.maxAgeMs ?? 10_000;
    this.#maxEntries = opts.maxEntries ?? 10_000;
    this.#now = opts.now ?? Date.now;
  }

  get mode(): KeptSignInMode {
    return this.#mode;
  }

  /** The user's state under their session: from memory when allowed and known, else from the database. */
  async state(userId: number, sessionId: string | undefined): Promise<SignedInState | undefined> {
    const sid = sessionId ?? '';
    if (this.#serving()) {
      const kept = this.#lookup(userId, sid);
      if (kept) {
        this.counts.kept++;
        return kept;
      }
    }
    // Requests of one session that miss together share one read (a crowd on one wall-screen account would otherwise
    // queue one read each for the pool whenever its state expires), unless a change was heard since it began: a
    // request then reads anew, so a logout or a role change still shows on the next request.
    const key = `${userId}|${sid}`;
    const sharing = this.#listening && this.#mode !== 'off';
    const running = this.#reading.get(key);
    if (sharing && running && running.generation === this.#generation) {
      this.counts.shared++;
      return running.answer;
    }
    const generation = this.#generation;
    const answer = this.read(userId, sessionId).then((fresh) => {
      this.counts.read++;
      if (fresh && this.#listening && this.#mode !== 'off' && generation === this.#generation)
        this.#keep(userId, sid, fresh);
      return fresh;
    });
    if (!sharing) return answer;
    const entry = { generation, answer };
    this.#reading.set(key, entry);
    const done = () => {
      if (this.#reading.get(key) === entry) this.#reading.delete(key);
    };
    answer.then(done, done);
    return answer;
  }

  /**
   * After this process wrote (any user, any tenant): returns once every change committed so far has been heard, so
   * the next request here reads nothing older. A marker sent on vigie_signed_in comes back after the notices of
   * every transaction that committed before it (PostgreSQL delivers them in commit order). Not heard within
   * `timeoutMs`, or not sent: everything kept is forgotten instead.
   */
  async settle(notify: (payload: string) => Promise<void>, timeoutMs = 2000): Promise<void> {
    if (!this.#listening) return;
    const marker = `~${randomUUID()}`;
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<boolean>((resolve) => {
      this.#markers.set(marker, () => resolve(true));
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      const sent = await notify(marker).then(
        () => true,
        () => false,
      );
      if (!sent || !(await heard)) this.#forgetAll();
    } finally {
      clearTimeout(timer);
      this.#markers.delete(marker);
    }
  }

  /**
   * The version under which the user's notification lists may be kept and served, or undefined when they must be
   * read from the database (not listening, or not allowed now: see the mode). Renewed by every notice of a change.
   */
  inboxVersion(userId: number): number | undefined {
    if (!this.#serving()) return undefined;
    let stamp = this.#inbox.get(userId);
    if (stamp === undefined) this.#inbox.set(userId, (stamp = ++this.#stamps));
    return stamp;
  }

  /** A notice of vigie_inbox: these users' notifications (or everybody's) changed. */
  heardInbox(payload: string): void {
    if (payload === '*') return this.#inbox.clear();
    for (const id of payload.split(',')) this.#inbox.delete(Number(id));
  }

  /** A notice of vigie_signed_in: these users' states (or everybody's) changed; or a process's settle() marker. */
  heardSignedIn(payload: string): void {
    if (payload.startsWith('~')) return this.#markers.get(payload)?.();
    this.#generation++;
    // Everybody: a tenant changed, whose name the notification lists show.
    if (payload === '*') {
      this.#inbox.clear();
      return this.#clearStates();
    }
    for (const id of payload.split(',')) this.#dropUser(Number(id));
  }

  /** A notice of vigie_writes: tenants' new versions (or '*': forget them all). */
  heardWrites(payload: string): void {
    if (payload === '*') {
      this.#generation++;
      this.#versions.clear();
      this.#heard.clear();
      return;
    }
    for (const pair of payload.split(',')) {
      const [tenant, text] = pair.split(':');
      const seq = Number(text);
      if (!tenant || !Number.isFinite(seq)) continue;
      this.#heard.set(tenant, Math.max(seq, this.#heard.get(tenant) ?? 0));
      // A version heard alone is not known: a write with a larger number may have committed before listening began.
      // Known ones (read from the database since) grow.
      const known = this.#versions.get(tenant);
      if (known !== undefined && seq > known) this.#versions.set(tenant, seq);
    }
  }

  /** Listening began (again) or stopped: either way, what was kept may have missed notices. */
  listening(on: boolean): void {
    this.#forgetAll();
    this.#listening = on;
  }

  get size(): number {
    return this.#entries;
  }

  #lookup(userId: number, sid: string): SignedInState | undefined {
    const kept = this.#states.get(userId)?.get(sid);
    if (!kept || this.#now() - kept.at >= this.#maxAgeMs) return undefined;
    const platform = this.#versions.get(PLATFORM_WRITES);
    if (platform === undefined) return undefined;
    const tenants = new Map<string, number>();
    for (const m of kept.state.memberships) {
      const v = this.#versions.get(m.tenantId);
      if (v === undefined) return undefined;
      tenants.set(m.tenantId, v);
    }
    return { ...kept.state, versions: { tenants, platform } };
  }

  #keep(userId: number, sid: string, fresh: SignedInState): void {
    const { versions, ...state } = fresh;
    for (const [tenant, v] of [...versions.tenants, [PLATFORM_WRITES, versions.platform] as const]) {
      this.#versions.set(tenant, Math.max(v, this.#versions.get(tenant) ?? 0, this.#heard.get(tenant) ?? 0));
    }
    if (this.#entries >= this.#maxEntries) this.#clearStates();
    let sessions = this.#states.get(userId);
    if (!sessions) this.#states.set(userId, (sessions = new Map<string, Kept>()));
    if (!sessions.has(sid)) this.#entries++;
    sessions.set(sid, { state, at: this.#now() });
  }

  #dropUser(userId: number): void {
    const sessions = this.#states.get(userId);
    if (!sessions) return;
    this.#entries -= sessions.size;
    this.#states.delete(userId);
  }

  #serving(): boolean {
    return this.#listening && (this.#mode === 'always' || (this.#mode === 'busy' && this.#busy()));
  }

  #forgetAll(): void {
    this.#generation++;
    this.#inbox.clear();
    this.#clearStates();
    this.#versions.clear();
    this.#heard.clear();
  }

  #clearStates(): void {
    this.#states.clear();
    this.#entries = 0;
  }
}

/** The keeper of the app: states read by UsersRepository.signedInState, busy when the database's pool is. */
export function keptSignInOf(database: Database, mode: KeptSignInMode): KeptSignIn {
  const users = new UsersRepository(database.db);
  return new KeptSignIn((userId, sessionId) => users.signedInState(userId, sessionId), {
    mode,
    busy: () => database.busy(),
  });
}
