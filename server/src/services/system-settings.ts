import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { systemSettings } from '../db/schema.ts';
import { FieldErrors } from '../domain/errors.ts';
import { charCount } from '../../../contract/text.ts';
import { booleanProblem, integerProblem } from '../domain/setting-values.ts';

/** A setting's rule: its spec §3 default and how a new value is checked (a French message when refused). */
type Rule =
  | { kind: 'boolean'; default: boolean }
  | { kind: 'integer'; default: number; min: number; max: number; unit: string }
  | { kind: 'choice'; default: string; choices: readonly string[] }
  | { kind: 'text'; default: string; max: number; check?: (v: string) => string | null };

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** spec §3 system settings with their defaults, in the order the spec lists them. */
export const SETTING_RULES = {
  theme: { kind: 'choice', default: 'light', choices: ['light', 'dark'] },
  notifications: { kind: 'boolean', default: true },
  api_timeout: { kind: 'integer', default: 10, min: 1, max: 300, unit: 'secondes' },
  max_asset_scan_duration: { kind: 'integer', default: 60, min: 1, max: 1440, unit: 'minutes' },
  log_retention_days: { kind: 'integer', default: 30, min: 1, max: 3650, unit: 'jours' },
  enable_two_factor_auth: { kind: 'boolean', default: false },
  debug_mode: { kind: 'boolean', default: false },
  maintenance_mode: { kind: 'boolean', default: false },
  app_name: { kind: 'text', default: 'Vigie', max: 100, check: (v) => (v.trim() === '' ? 'vide' : null) },
  environment: { kind: 'choice', default: 'development', choices: ['development', 'staging', 'production'] },
  max_scan_duration: { kind: 'integer', default: 3600, min: 60, max: 86_400, unit: 'secondes' },
  default_scan_interval: { kind: 'integer', default: 86_400, min: 3600, max: 2_592_000, unit: 'secondes' },
  notification_email: {
    kind: 'text',
    default: '',
    max: 254,
    check: (v) => (v === '' || EMAIL_RE.test(v) ? null : 'adresse invalide'),
  },
  log_level: { kind: 'choice', default: 'info', choices: ['debug', 'info', 'warning', 'error', 'critical'] },
  timezone: { kind: 'text', default: 'UTC', max: 64, check: (v) => (isTimeZone(v) ? null : 'fuseau inconnu') },
  language: { kind: 'choice', default: 'fr', choices: ['fr', 'en'] },
} as const satisfies Record<string, Rule>;

export type SettingKey = keyof typeof SETTING_RULES;
export type SystemSettings = {
  [K in SettingKey]: (typeof SETTING_RULES)[K]['default'] extends boolean
    ? boolean
    : (typeof SETTING_RULES)[K]['default'] extends number
      ? number
      : string;
};

const KEYS = Object.keys(SETTING_RULES) as SettingKey[];

function defaults(): SystemSettings {
  return Object.fromEntries(KEYS.map((k) => [k, SETTING_RULES[k].default])) as SystemSettings;
}

/** Stored overrides on top of the defaults; a stored value that no longer passes its rule is ignored. */
function merge(stored: Record<string, unknown>): SystemSettings {
  const out = defaults() as Record<string, unknown>;
  for (const key of KEYS) {
    if (key in stored && messageFor(key, stored[key]) === null) out[key] = stored[key];
  }
  return out as SystemSettings;
}

/** The French refusal for one value, or null when it is acceptable. */
function messageFor(key: SettingKey, value: unknown): string | null {
  const rule: Rule = SETTING_RULES[key];
  switch (rule.kind) {
    case 'boolean':
      return booleanProblem(key, value);
    case 'integer':
      return integerProblem(key, value, rule);
    case 'choice':
      return typeof value === 'string' && rule.choices.includes(value)
        ? null
        : `« ${key} » doit valoir ${rule.choices.join(', ')}.`;
    case 'text': {
      if (typeof value !== 'string' || charCount(value) > rule.max)
        return `« ${key} » doit être un texte de ${rule.max} caractères au plus.`;
      const problem = rule.check?.(value);
      return problem ? `« ${key} » invalide : ${problem}.` : null;
    }
  }
}

/** Checks a PATCH body: known keys only, each value by its rule. Throws a 400 with every field's message. */
export function validateSettingsPatch(body: unknown): Partial<SystemSettings> {
  const errors = new FieldErrors();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    errors.add('non_field_errors', 'Un objet JSON de paramètres est attendu.');
    errors.throwIfAny();
  }
  const patch: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(body as Record<string, unknown>)) {
    if (!Object.hasOwn(SETTING_RULES, key)) {
      errors.add(key, `Paramètre inconnu : « ${key} ».`);
      continue;
    }
    const value = typeof raw === 'string' && key !== 'app_name' ? raw.trim() : raw;
    const message = messageFor(key as SettingKey, value);
    if (message) errors.add(key, message);
    else patch[key] = value;
  }
  errors.throwIfAny();
  return patch;
}

/** What a PATCH really changed, by key (in the patch's order), for its audit line. */
export function settingChanges(patch: Partial<SystemSettings>, before: SystemSettings, after: SystemSettings) {
  const changed = (Object.keys(patch) as SettingKey[]).filter((k) => before[k] !== after[k]);
  return Object.fromEntries(changed.map((k) => [k, { from: before[k], to: after[k] }]));
}

/**
 * Reads and writes the settings, with a short in-process cache: the maintenance check runs on every request,
 * and another process's change is seen within CACHE_MS.
 */
export class SystemSettingsStore {
  static readonly CACHE_MS = 5_000;
  private static readonly shared = new WeakMap<Db, SystemSettingsStore>();
  private cached: { at: number; value: SystemSettings } | undefined;

  /** One store per database in a process, so a change is seen at once by every reader here. */
  static of(db: Db): SystemSettingsStore {
    let store = SystemSettingsStore.shared.get(db);
    if (!store) SystemSettingsStore.shared.set(db, (store = new SystemSettingsStore(db)));
    return store;
  }

  private constructor(private readonly db: Db) {}

  /** Forgets the cached value: a backup restore replaced the row underneath. */
  invalidate(): void {
    this.cached = undefined;
  }

  async get(): Promise<SystemSettings> {
    const now = Date.now();
    if (this.cached && now - this.cached.at < SystemSettingsStore.CACHE_MS) return this.cached.value;
    const [row] = await this.db
      .select({ values: systemSettings.values })
      .from(systemSettings)
      .where(eq(systemSettings.id, 1));
    const value = merge(row?.values ?? {});
    this.cached = { at: now, value };
    return value;
  }

  /** Applies a validated patch; returns the settings before and after. */
  async update(
    patch: Partial<SystemSettings>,
    userId: number,
  ): Promise<{ before: SystemSettings; after: SystemSettings }> {
    this.cached = undefined;
    const before = await this.get();
    const json = JSON.stringify(patch);
    await this.db
      .insert(systemSettings)
      .values({ id: 1, values: patch, updatedBy: userId })
      .onConflictDoUpdate({
        target: systemSettings.id,
        set: { values: sql`${systemSettings.values} || ${json}::jsonb`, updatedAt: sql`now()`, updatedBy: userId },
      });
    this.cached = undefined;
    return { before, after: await this.get() };
  }
}
