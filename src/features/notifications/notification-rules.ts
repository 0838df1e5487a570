import { hasPermission, rightsIn } from '../../lib/auth/roles.ts';
import type { UserProfile } from '../../lib/auth/types.ts';
import { NOTIFICATION_LEVEL_LABELS, type NotificationLevel } from '../../../contract/levels.ts';
import { dateFormat } from '../../lib/format.ts';

/**
 * docs/api-notifications.md: managers, admins, staff and superusers of the current tenant may send (the server
 * decides; this only hides the form from the others).
 */
export function maySendNotifications(profile: UserProfile | null | undefined, tenantId: string | undefined): boolean {
  return hasPermission(rightsIn(profile, tenantId), 'send_notification');
}

export const LEVEL_LABELS: Record<NotificationLevel, string> = NOTIFICATION_LEVEL_LABELS;

/** The badge colours the other screens use for the same meaning. */
export const LEVEL_BADGES: Record<NotificationLevel, string> = {
  info: 'info',
  warning: 'medium',
  critical: 'critical',
};

/** The server's validation messages, checked here first so the form answers at once (the server checks again). */
export const FIELD_MESSAGES = {
  title: 'Le titre est obligatoire (200 caractères au plus).',
  body: 'Le texte dépasse 2000 caractères.',
  level: 'Niveau invalide : info, warning ou critical.',
  link: 'Lien invalide : un chemin de l’application commençant par « / » est attendu.',
  user: 'Destinataire inconnu dans cette organisation.',
} as const;

const ABSOLUTE = dateFormat({ dateStyle: 'medium', timeStyle: 'short' });
const RELATIVE = new Intl.RelativeTimeFormat('fr-FR', { numeric: 'auto' });

/** '2 juin 2025 à 10:15' */
export function absoluteDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : ABSOLUTE.format(d);
}

/** 'à l’instant', 'il y a 5 minutes', 'hier'…; past a week, the absolute date. */
export function relativeDate(iso: string, now = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '—';
  const seconds = Math.round((at - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return 'à l’instant';
  if (abs < 3600) return RELATIVE.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return RELATIVE.format(Math.round(seconds / 3600), 'hour');
  if (abs < 7 * 86_400) return RELATIVE.format(Math.round(seconds / 86_400), 'day');
  return absoluteDate(iso);
}
