import type { AuditEvent, AuditPage } from './audit-api.ts';

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

const TEMPLATES: Template[] = [
  {
    event_type: 'user_login',
    user: 'marie.dupont',
    ip_address: '192.0.2.14',
    description: 'Connexion réussie de l’utilisateur marie.dupont',
    severity: 'INFO',
    details: { success: true },
    source: 'server',
    extra: { method: 'mot de passe + TOTP' },
  },
  {
    event_type: 'configuration_change',
    user: 'admin.secu',
    ip_address: '192.0.2.3',
    description: 'Modification de la politique de mots de passe : longueur minimale portée de 12 à 14 caractères',
    severity: 'WARNING',
    details: { success: true },
    source: 'server',
    extra: { setting: 'password_min_length', old_value: 12, new_value: 14 },
  },
  {
    event_type: 'vulnerability_scan',
    user: 'luc.moreau',
    ip_address: '198.51.100.21',
    description: 'Scan de vulnérabilités Nmap lancé sur le périmètre « Réseau interne Lyon » (254 hôtes)',
    severity: 'INFO',
    details: { success: true },
    source: 'server',
    extra: { scanner: 'nmap', target: '10.20.0.0/24' },
  },
  {
    event_type: 'sensitive_data_access',
    user: 'sophie.leroy',
    ip_address: '192.0.2.27',
    description: 'Consultation de la liste des comptes à privilèges du tenant',
    severity: 'WARNING',
    details: { success: true },
    source: 'server',
    extra: { resource: '/api/admin/users/' },
  },
  {
    event_type: 'login_failed',
    user: 'j.martin',
    ip_address: '203.0.113.45',
    description: 'Échec de connexion pour le compte j.martin : mot de passe incorrect (3ᵉ tentative)',
    severity: 'WARNING',
    details: { success: false },
    source: 'server',
    extra: { attempts: 3 },
  },
  {
    event_type: 'vulnerability_scan',
    user: 'luc.moreau',
    ip_address: '198.51.100.21',
    description: 'Échec de l’import du rapport OpenVAS pour srv-db-02 : fichier illisible',
    severity: 'ERROR',
    details: { success: false },
    source: 'server',
    extra: { scanner: 'openvas', asset: 'srv-db-02' },
  },
  {
    event_type: 'user_logout',
    user: 'paul.bernard',
    ip_address: '192.0.2.88',
    description: 'Déconnexion de l’utilisateur paul.bernard',
    severity: 'INFO',
    details: { success: true },
    source: 'frontend',
    extra: null,
  },
  {
    event_type: 'configuration_change',
    user: 'admin.secu',
    ip_address: '192.0.2.3',
    description: 'Désactivation de l’authentification à deux facteurs obligatoire pour le tenant',
    severity: 'CRITICAL',
    details: { success: true },
    source: 'server',
    extra: { setting: 'require_two_factor', old_value: true, new_value: false },
  },
  {
    event_type: 'sensitive_data_access',
    user: 'sophie.leroy',
    ip_address: '192.0.2.27',
    description: 'Export CSV du journal d’audit (128 lignes)',
    severity: 'INFO',
    details: { success: true },
    source: 'server',
    extra: { format: 'csv', rows: 128 },
  },
  {
    event_type: 'permission_denied',
    user: 'camille.roux',
    ip_address: '203.0.113.9',
    description: 'Accès refusé à la ressource : tentative de suppression d’un actif sans les droits d’écriture',
    severity: 'ERROR',
    details: { success: false },
    source: 'server',
    extra: { resource: '/api/assets/17/', method: 'DELETE' },
  },
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
