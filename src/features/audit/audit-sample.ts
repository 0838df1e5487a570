import type { AuditEvent, AuditEventSeverity, AuditPage } from './audit-api.ts';

/** spec §8: what a failed read of the trail shows instead — 10 generated events, total 42, 5 pages. */
export const SAMPLE_TOTAL = 42;
export const SAMPLE_PAGES = 5;
export const SAMPLE_SIZE = 10;

/** A fixed instant, so the sample is the same on every run (and in tests). */
const SAMPLE_NOW = Date.UTC(2025, 5, 2, 9, 30, 0);
const SAMPLE_TENANT = '00000000-0000-4000-8000-000000000001';

type Template = Omit<AuditEvent, 'id' | 'timestamp' | 'tenant_id'>;

const CLIENTS = [
  { browser: 'Firefox 139', os: 'Windows 11' },
  { browser: 'Chrome 137', os: 'macOS 15' },
  { browser: 'Edge 137', os: 'Windows 10' },
  { browser: 'Safari 18', os: 'iOS 18' },
  { browser: 'Chrome 137', os: 'Ubuntu 24.04' },
] as const;

/** The address each sample user works from. */
const ADDRESSES = {
  'marie.dupont': '192.0.2.14',
  'admin.secu': '192.0.2.3',
  'luc.moreau': '198.51.100.21',
  'sophie.leroy': '192.0.2.27',
  'j.martin': '203.0.113.45',
  'paul.bernard': '192.0.2.88',
  'camille.roux': '203.0.113.9',
} as const;

/** A sample event of `user`, from their address: a success the server recorded unless said otherwise. */
function template(
  event_type: string,
  user: keyof typeof ADDRESSES,
  severity: AuditEventSeverity,
  description: string,
  extra: Record<string, unknown> | null,
  { success = true, source = 'server' }: { success?: boolean; source?: AuditEvent['source'] } = {},
): Template {
  return { event_type, user, ip_address: ADDRESSES[user], description, severity, details: { success }, source, extra };
}

const TEMPLATES: Template[] = [
  template('user_login', 'marie.dupont', 'INFO', 'Connexion réussie de l’utilisateur marie.dupont', {
    method: 'mot de passe + TOTP',
  }),
  template(
    'configuration_change',
    'admin.secu',
    'WARNING',
    'Modification de la politique de mots de passe : longueur minimale portée de 12 à 14 caractères',
    { setting: 'password_min_length', old_value: 12, new_value: 14 },
  ),
  template(
    'vulnerability_scan',
    'luc.moreau',
    'INFO',
    'Scan de vulnérabilités Nmap lancé sur le périmètre « Réseau interne Lyon » (254 hôtes)',
    { scanner: 'nmap', target: '10.20.0.0/24' },
  ),
  template(
    'sensitive_data_access',
    'sophie.leroy',
    'WARNING',
    'Consultation de la liste des comptes à privilèges du tenant',
    { resource: '/api/admin/users/' },
  ),
  template(
    'login_failed',
    'j.martin',
    'WARNING',
    'Échec de connexion pour le compte j.martin : mot de passe incorrect (3ᵉ tentative)',
    { attempts: 3 },
    { success: false },
  ),
  template(
    'vulnerability_scan',
    'luc.moreau',
    'ERROR',
    'Échec de l’import du rapport OpenVAS pour srv-db-02 : fichier illisible',
    { scanner: 'openvas', asset: 'srv-db-02' },
    { success: false },
  ),
  template('user_logout', 'paul.bernard', 'INFO', 'Déconnexion de l’utilisateur paul.bernard', null, {
    source: 'frontend',
  }),
  template(
    'configuration_change',
    'admin.secu',
    'CRITICAL',
    'Désactivation de l’authentification à deux facteurs obligatoire pour le tenant',
    { setting: 'require_two_factor', old_value: true, new_value: false },
  ),
  template('sensitive_data_access', 'sophie.leroy', 'INFO', 'Export CSV du journal d’audit (128 lignes)', {
    format: 'csv',
    rows: 128,
  }),
  template(
    'permission_denied',
    'camille.roux',
    'ERROR',
    'Accès refusé à la ressource : tentative de suppression d’un actif sans les droits d’écriture',
    { resource: '/api/assets/17/', method: 'DELETE' },
    { success: false },
  ),
];

/** Minutes between two sample events, varied but fixed. */
const GAPS = [7, 23, 4, 41, 12, 66, 3, 19, 35, 9, 52];

/**
 * The spec §8 sample page for `page` (1 to 5): always 10 events, newest first, deterministic; each page shows the
 * templates in another order and at earlier times, so paging through the sample looks like a real trail.
 */
export function sampleAuditPage(page = 1): AuditPage {
  const current = Math.min(Math.max(1, Math.trunc(page) || 1), SAMPLE_PAGES);
  let minutes = 0;
  for (let n = 0; n < (current - 1) * SAMPLE_SIZE; n++) minutes += GAPS[n % GAPS.length]!;
  const results: AuditEvent[] = [];
  for (let i = 0; i < SAMPLE_SIZE; i++) {
    const n = (current - 1) * SAMPLE_SIZE + i;
    const template = TEMPLATES[(n * 3 + current) % TEMPLATES.length]!;
    const client = CLIENTS[n % CLIENTS.length]!;
    results.push({
      ...template,
      id: `sample-${n + 1}`,
      timestamp: new Date(SAMPLE_NOW - minutes * 60_000).toISOString(),
      tenant_id: SAMPLE_TENANT,
      details: { ...client, ...template.details },
      extra: template.extra ? { ...template.extra } : null,
    });
    minutes += GAPS[n % GAPS.length]!;
  }
  return { results, total: SAMPLE_TOTAL, page: current, size: SAMPLE_SIZE, pages: SAMPLE_PAGES };
}
