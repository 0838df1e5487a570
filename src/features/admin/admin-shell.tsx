import type { ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { currentTenantId, session } from '../../lib/auth/session.ts';
import type { UserProfile } from '../../lib/auth/types.ts';
import { isAdministrator, isSuperuser } from '../../lib/auth/admin-access.ts';
import './admin.css';

export interface AdminSection {
  href: string;
  label: string;
  description: string;
  /** Platform-wide: the server answers superusers only, so tenant admins do not see the entry. */
  superuserOnly?: boolean;
}

/** The console's screens, in the sub-navigation's order. */
export const ADMIN_SECTIONS: readonly AdminSection[] = [
  {
    href: '/admin/tenants',
    label: 'Organisations',
    description: 'Organisations (tenants) : offre, statut, contact ; création, suppression et restauration.',
  },
  {
    href: '/admin/users',
    label: 'Utilisateurs',
    description: 'Comptes de l’organisation courante, rôles et suppression.',
  },
  {
    // Outside the console's frame (/displays): managers pair screens too, and the wall's QR code leads there.
    href: '/displays',
    label: 'Écrans',
    description: 'Écrans de supervision (mode affichage) : appairage, panneaux affichés, révocation.',
  },
  {
    href: '/admin/models',
    label: 'Modèles',
    description: 'Administration générique des données : comptes, appartenances, actifs, menaces, projets…',
  },
  {
    href: '/admin/settings',
    label: 'Paramètres système',
    description: 'Délais, durées de scan, conservation des journaux, langue, fuseau horaire, mode maintenance.',
  },
  {
    href: '/admin/security',
    label: 'Politiques de sécurité',
    description: 'Règles de mot de passe, double authentification par rôle, durée de session, verrouillage.',
  },
  {
    href: '/admin/permissions',
    label: 'Permissions',
    description: 'Vos droits d’administration tels que le serveur les donne.',
  },
  {
    href: '/admin/config',
    label: 'Configuration',
    description: 'Configuration d’exécution du serveur et emplacement des sauvegardes.',
    superuserOnly: true,
  },
  {
    href: '/admin/logs',
    label: 'Journaux serveur',
    description: 'Journaux techniques du serveur : filtres, pagination et export.',
    superuserOnly: true,
  },
  {
    href: '/admin/backups',
    label: 'Sauvegardes',
    description: 'Sauvegardes de la base et des documents : création, téléchargement, restauration, suppression.',
    superuserOnly: true,
  },
  {
    href: '/admin/status',
    label: 'État du système',
    description: 'Base de données, file de tâches, disque, version, mises à jour CVE — actualisé automatiquement.',
    superuserOnly: true,
  },
];

export function visibleSections(profile: UserProfile | null | undefined): AdminSection[] {
  return ADMIN_SECTIONS.filter((s) => !s.superuserOnly || isSuperuser(profile));
}

/**
 * The frame of every administration screen: the console's own sub-navigation above the screen. Signed-in users
 * who are not administrators get a French refusal instead (the server refuses them anyway).
 */
export default function AdminLayout({ children }: { children: ReactNode }) {
  useSignals();
  const profile = session.value?.profile;
  const [location] = useLocation();
  if (!isAdministrator(profile, currentTenantId())) {
    return (
      <section className="page narrow">
        <h1>Administration</h1>
        <p className="error" role="alert">
          Cette partie est réservée aux administrateurs.
        </p>
      </section>
    );
  }
  const section = ADMIN_SECTIONS.find((s) => location === s.href || location.startsWith(`${s.href}/`));
  return (
    <div className="page admin-frame">
      <nav className="admin-subnav" aria-label="Administration">
        <Link href="/admin" aria-current={location === '/admin' ? 'page' : undefined}>
          Vue d’ensemble
        </Link>
        {visibleSections(profile).map((s) => (
          <Link key={s.href} href={s.href} aria-current={s === section ? 'page' : undefined}>
            {s.label}
          </Link>
        ))}
      </nav>
      {section?.superuserOnly && !isSuperuser(profile) ? (
        <p className="error" role="alert">
          Cet écran est réservé aux superutilisateurs.
        </p>
      ) : (
        children
      )}
    </div>
  );
}

/** The console's home: one card per screen this administrator may open. */
export function AdminHome() {
  useSignals();
  const profile = session.value?.profile;
  return (
    <section className="admin-page">
      <h1>Administration</h1>
      <p className="muted">
        {isSuperuser(profile)
          ? 'Vous administrez toute la plateforme.'
          : 'Vous administrez votre organisation ; les réglages de la plateforme sont réservés aux superutilisateurs.'}
      </p>
      <ul className="admin-cards">
        {visibleSections(profile).map((s) => (
          <li key={s.href} className="card">
            <h2>
              <Link href={s.href}>{s.label}</Link>
            </h2>
            <p>{s.description}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
