/**
 * Typed descriptions of the system settings and security policies (docs/api-admin.md), so one form renders each
 * with the right control and checks it with the server's ranges before sending.
 */
import { charCount } from '../../../contract/text.ts';

export type SettingSpec =
  | { key: string; label: string; kind: 'boolean'; help?: string }
  | { key: string; label: string; kind: 'integer'; min: number; max: number; unit: string; help?: string }
  | { key: string; label: string; kind: 'choice'; options: readonly (readonly [string, string])[]; help?: string }
  | { key: string; label: string; kind: 'text'; maxLength: number; required: boolean; help?: string }
  | { key: string; label: string; kind: 'email'; help?: string }
  | { key: string; label: string; kind: 'timezone'; help?: string }
  | { key: string; label: string; kind: 'roles'; options: readonly (readonly [string, string])[]; help?: string };

export interface SettingGroup {
  title: string;
  specs: readonly SettingSpec[];
}

/** Form values: booleans, role lists, and text for everything typed in a box. */
export type DraftValue = string | boolean | string[];
export type Draft = Record<string, DraftValue>;
export type StoredValue = string | number | boolean | string[] | null;

const NUMBER = new Intl.NumberFormat('fr-FR');

export const SYSTEM_SETTING_GROUPS: readonly SettingGroup[] = [
  {
    title: 'Général',
    specs: [
      { key: 'app_name', label: 'Nom de l’application', kind: 'text', maxLength: 100, required: true },
      {
        key: 'environment',
        label: 'Environnement',
        kind: 'choice',
        options: [
          ['development', 'Développement'],
          ['staging', 'Préproduction'],
          ['production', 'Production'],
        ],
      },
      {
        key: 'language',
        label: 'Langue',
        kind: 'choice',
        options: [
          ['fr', 'Français'],
          ['en', 'Anglais'],
        ],
      },
      { key: 'timezone', label: 'Fuseau horaire', kind: 'timezone', help: 'Un fuseau IANA, par exemple Europe/Paris.' },
      {
        key: 'theme',
        label: 'Thème',
        kind: 'choice',
        options: [
          ['light', 'Clair'],
          ['dark', 'Sombre'],
        ],
      },
    ],
  },
  {
    title: 'Notifications',
    specs: [
      { key: 'notifications', label: 'Notifications activées', kind: 'boolean' },
      { key: 'notification_email', label: 'Adresse e-mail des notifications', kind: 'email', help: 'Vide : aucune.' },
    ],
  },
  {
    title: 'Scans',
    specs: [
      {
        key: 'max_scan_duration',
        label: 'Durée maximale d’un scan',
        kind: 'integer',
        min: 60,
        max: 86_400,
        unit: 'secondes',
      },
      {
        key: 'default_scan_interval',
        label: 'Intervalle par défaut entre deux scans',
        kind: 'integer',
        min: 3_600,
        max: 2_592_000,
        unit: 'secondes',
      },
      {
        key: 'max_asset_scan_duration',
        label: 'Durée maximale du scan d’un actif',
        kind: 'integer',
        min: 1,
        max: 1_440,
        unit: 'minutes',
      },
    ],
  },
  {
    title: 'API et journaux',
    specs: [
      { key: 'api_timeout', label: 'Délai des requêtes API', kind: 'integer', min: 1, max: 300, unit: 'secondes' },
      {
        key: 'log_level',
        label: 'Niveau de journalisation',
        kind: 'choice',
        options: [
          ['debug', 'Débogage'],
          ['info', 'Information'],
          ['warning', 'Avertissement'],
          ['error', 'Erreur'],
          ['critical', 'Critique'],
        ],
      },
      {
        key: 'log_retention_days',
        label: 'Conservation des journaux',
        kind: 'integer',
        min: 1,
        max: 3_650,
        unit: 'jours',
        help: 'Les purges quotidiennes gardent ce nombre de jours d’audit et de journaux serveur.',
      },
      { key: 'debug_mode', label: 'Mode débogage', kind: 'boolean' },
    ],
  },
  {
    title: 'Sécurité',
    specs: [{ key: 'enable_two_factor_auth', label: 'Double authentification proposée', kind: 'boolean' }],
  },
  {
    title: 'Maintenance',
    specs: [
      {
        key: 'maintenance_mode',
        label: 'Mode maintenance',
        kind: 'boolean',
        help: 'L’API répond « maintenance en cours » à tous sauf aux administrateurs.',
      },
    ],
  },
];

export const ROLE_OPTIONS = [
  ['superuser', 'Superutilisateurs'],
  ['staff', 'Équipe (staff)'],
  ['admin', 'Administrateurs'],
  ['manager', 'Responsables'],
  ['user', 'Utilisateurs'],
  ['readonly', 'Lecture seule'],
] as const;

export const SECURITY_POLICY_GROUPS: readonly SettingGroup[] = [
  {
    title: 'Mots de passe',
    specs: [
      { key: 'password_min_length', label: 'Longueur minimale', kind: 'integer', min: 8, max: 128, unit: 'caractères' },
      { key: 'password_require_uppercase', label: 'Exiger une majuscule', kind: 'boolean' },
      { key: 'password_require_lowercase', label: 'Exiger une minuscule', kind: 'boolean' },
      { key: 'password_require_digit', label: 'Exiger un chiffre', kind: 'boolean' },
      {
        key: 'password_require_symbol',
        label: 'Exiger un caractère spécial',
        kind: 'boolean',
        help: 'Ni lettre, ni chiffre, ni espace.',
      },
    ],
  },
  {
    title: 'Double authentification',
    specs: [
      {
        key: 'two_factor_required_roles',
        label: 'Obligatoire pour',
        kind: 'roles',
        options: ROLE_OPTIONS,
        help: 'Un compte concerné sans double authentification ne peut plus rien faire avant de la configurer.',
      },
    ],
  },
  {
    title: 'Sessions et connexions',
    specs: [
      {
        key: 'session_lifetime_minutes',
        label: 'Durée de session',
        kind: 'integer',
        min: 5,
        max: 43_200,
        unit: 'minutes',
        help: 'La durée de vie de chaque jeton de rafraîchissement.',
      },
      {
        key: 'login_attempts_per_minute',
        label: 'Tentatives par minute et par compte',
        kind: 'integer',
        min: 1,
        max: 1_000,
        unit: 'tentatives',
      },
      { key: 'lockout_threshold', label: 'Verrouillage après', kind: 'integer', min: 3, max: 100, unit: 'échecs' },
      { key: 'lockout_minutes', label: 'Durée du verrouillage', kind: 'integer', min: 1, max: 1_440, unit: 'minutes' },
      { key: 'allow_registration', label: 'Inscription libre autorisée', kind: 'boolean' },
    ],
  },
];

/** The server's value as a form value. */
export function draftOf(groups: readonly SettingGroup[], values: Record<string, unknown>): Draft {
  const draft: Draft = {};
  for (const spec of groups.flatMap((g) => g.specs)) {
    const v = values[spec.key];
    if (spec.kind === 'boolean') draft[spec.key] = v === true;
    else if (spec.kind === 'roles')
      draft[spec.key] = Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    else draft[spec.key] = typeof v === 'string' || typeof v === 'number' ? String(v) : '';
  }
  return draft;
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('fr-FR', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The French message of a wrong value, or null. */
export function checkValue(spec: SettingSpec, value: DraftValue): string | null {
  switch (spec.kind) {
    case 'integer': {
      const text = String(value).trim();
      const n = Number(text);
      if (text === '' || !Number.isInteger(n) || n < spec.min || n > spec.max)
        return `${spec.label} : un entier entre ${NUMBER.format(spec.min)} et ${NUMBER.format(spec.max)} (${spec.unit}) est attendu.`;
      return null;
    }
    case 'text': {
      const text = String(value).trim();
      if (spec.required && text === '') return `${spec.label} : ce champ est requis.`;
      if (charCount(text) > spec.maxLength)
        return `${spec.label} : ${NUMBER.format(spec.maxLength)} caractères au plus.`;
      return null;
    }
    case 'email': {
      const text = String(value).trim();
      return text === '' || /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text)
        ? null
        : `${spec.label} : une adresse e-mail valide est attendue (ou rien).`;
    }
    case 'timezone':
      return isTimeZone(String(value).trim()) && String(value).trim() !== ''
        ? null
        : `${spec.label} : un fuseau horaire IANA est attendu, par exemple Europe/Paris.`;
    case 'choice':
      return spec.options.some(([v]) => v === value) ? null : `${spec.label} : valeur non prise en charge.`;
    default:
      return null;
  }
}

/** Every field's error, by key. */
export function validateDraft(groups: readonly SettingGroup[], draft: Draft): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const spec of groups.flatMap((g) => g.specs)) {
    const message = checkValue(spec, draft[spec.key] ?? '');
    if (message) errors[spec.key] = message;
  }
  return errors;
}

/** The value to send for a field. */
function typed(spec: SettingSpec, value: DraftValue): StoredValue {
  if (spec.kind === 'integer') return Number(String(value).trim());
  if (spec.kind === 'text' || spec.kind === 'email' || spec.kind === 'timezone') return String(value).trim();
  return value;
}

/** Only what changed (the server takes any subset, all or nothing). */
export function changesOf(groups: readonly SettingGroup[], before: Draft, after: Draft): Record<string, StoredValue> {
  const out: Record<string, StoredValue> = {};
  for (const spec of groups.flatMap((g) => g.specs)) {
    const a = typed(spec, before[spec.key] ?? '');
    const b = typed(spec, after[spec.key] ?? '');
    if (JSON.stringify(a) !== JSON.stringify(b)) out[spec.key] = b;
  }
  return out;
}
