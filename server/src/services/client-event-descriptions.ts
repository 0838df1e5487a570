/**
 * The French description of a client audit event that came without one: the journal's « Description » column and
 * its exports show it, where the raw type (« route_change ») would show through otherwise.
 */
import { clipText } from '../../../contract/text.ts';

const PERMISSIONS: Record<string, string> = {
  write: 'modification des données',
  admin_console: 'console d’administration',
  platform_admin: 'administration de la plateforme',
};

const UI_ACTIONS: Record<string, string> = {
  export: 'Export de données',
  delete_confirmed: 'Suppression confirmée',
  task_launch: 'Lancement d’une tâche',
  task_cancel: 'Annulation d’une tâche',
};

// Own keys only: a client's `constructor` must not find Object's.
const label = (table: Record<string, string>, key: string | undefined) =>
  key !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;

// Cut by characters (clipText), as the event's own fields are: never half an emoji.
const str = (v: unknown, max = 200): string | undefined =>
  typeof v === 'string' && v !== '' ? clipText(v, max) : undefined;

export function describeClientEvent(eventType: string, details: Record<string, unknown>): string {
  switch (eventType) {
    case 'login':
      return 'Connexion à l’application';
    case 'login_failed': {
      const who = str(details.username, 150);
      return who ? `Échec de connexion du compte « ${who} »` : 'Échec de connexion';
    }
    case 'logout':
      return 'Déconnexion de l’application';
    case 'token_refresh':
      return 'Renouvellement du jeton d’accès';
    case 'token_expired':
      return 'Token expiré ou invalide';
    case 'access_denied':
      return 'Accès refusé à la ressource';
    case 'permission_check': {
      const permission = str(details.permission, 64);
      const what = label(PERMISSIONS, permission) ?? permission ?? 'droit';
      return `Droit « ${what} » ${details.result === 'denied' ? 'refusé' : 'accordé'}`;
    }
    case 'tenant_switch':
      return 'Changement d’organisation';
    case 'route_change': {
      const path = str(details.path);
      return path ? `Affichage de l’écran ${path}` : 'Changement d’écran';
    }
    case 'api_request':
      return 'Appel à l’API';
    case 'api_error': {
      const status = typeof details.status === 'number' ? ` ${details.status}` : '';
      const url = str(details.url);
      return `Erreur${status} de l’API${url ? ` sur ${url}` : ''}`;
    }
    case 'ui_action': {
      const action = str(details.action, 64);
      if (action === 'mock_api_mode') return `Mode API simulée ${details.enabled === true ? 'activé' : 'désactivé'}`;
      return label(UI_ACTIONS, action) ?? 'Action dans l’interface';
    }
    default:
      return 'Événement de l’application';
  }
}
