import { useEffect, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { currentTenantId, greetingName, isAuthenticated, logout, session } from '../lib/auth/session.ts';
import { hasPermission, rightsIn, tenantRoleOf } from '../lib/auth/roles.ts';
import { isAdministrator } from '../lib/auth/admin-access.ts';
import type { UserProfile } from '../lib/auth/types.ts';
import { reloadToUpdate, updateAvailable } from './update-prompt.ts';
import { appearance } from '../lib/appearance.ts';
import { online } from './connectivity.ts';
import { localDataMode, mockApiMode, setMockMode } from './modes.ts';
import { SAMPLE_BANNER, samplesOnScreen } from '../lib/sample-presence.ts';
import { TenantSwitcher } from './tenant-switcher.tsx';
import { pendingWrites, refusedWrite } from './write-queue-status.ts';
import { maintenanceNotice } from '../lib/maintenance.ts';
import { NotificationBell, NotificationToast } from '../features/notifications/notification-bell.tsx';
import { managesDisplaysIn } from '../features/displays/permissions.ts';

/**
 * docs/api-audit.md: the trail is read by the current tenant's admins and managers, staff and superusers (the
 * server decides; this only hides the entry from the others).
 */
export function mayReadAudit(profile: UserProfile, tenantId: string | undefined): boolean {
  return hasPermission(rightsIn(profile, tenantId), 'view_auditlog');
}

/** Navigation by role: admin-only areas (spec §6) appear for administrators only. */
const NAV: {
  href: string;
  label: string;
  roles?: string[];
  show?: (profile: UserProfile, tenantId: string | undefined) => boolean;
}[] = [
  { href: '/dashboard', label: 'Tableau de bord' },
  { href: '/vulnerabilities', label: 'Vulnérabilités' },
  { href: '/scans', label: 'Scans' },
  { href: '/assets', label: 'Actifs' },
  { href: '/threats', label: 'Menaces' },
  { href: '/projects', label: 'Projets' },
  { href: '/tasks', label: 'Tâches' },
  { href: '/cve', label: 'CVE' },
  // Notifications: the bell beside the account (one link, its name says the unread count).
  { href: '/blog', label: 'Blog' },
  { href: '/audit', label: 'Journal d’audit', show: mayReadAudit },
  // The wall screens (« Écrans », issue 22): paired and managed by the tenant's administrators and managers, who
  // cannot all open the console below; the page leads on to the wall itself (/kiosk).
  { href: '/displays', label: 'Mode affichage', show: managesDisplaysIn },
  // One entry for the whole console (its own sub-navigation lists the screens).
  { href: '/admin', label: 'Administration', show: isAdministrator },
  { href: '/settings', label: 'Préférences' },
];

export function Layout({ children }: { children: ReactNode }) {
  useSignals();
  const profile = session.value?.profile;
  const role = tenantRoleOf(profile, currentTenantId());
  const signedIn = isAuthenticated.value && !!profile;
  const [location] = useLocation();
  // The bell's count and the notification stream, loaded after the first paint (a chunk of their own); the stream
  // pauses in mock API mode, where nothing may reach the network.
  useEffect(() => {
    let stop: (() => void) | undefined;
    let live = true;
    import('../features/notifications/notifications-state.ts').then(
      (engine) => {
        if (live) stop = engine.startNotifications({ paused: mockApiMode });
      },
      () => {
        /* offline before the chunk was ever cached: the bell keeps 0 until the next load */
      },
    );
    return () => {
      live = false;
      stop?.();
    };
  }, []);

  return (
    <div className={signedIn ? 'shell signed-in' : 'shell'}>
      <a className="skip-link" href="#main">
        Aller au contenu
      </a>
      <header className="topbar">
        <Link href="/" className="brand" aria-label={`${appearance.value.app_name}, accueil`}>
          <img src="/favicon.svg" alt="" width="28" height="28" />
          <span>{appearance.value.app_name}</span>
        </Link>
        <nav aria-label="Navigation principale" className="topnav">
          {signedIn &&
            NAV.filter(
              (item) =>
                (!item.roles || item.roles.includes(role)) && (!item.show || item.show(profile, currentTenantId())),
            ).map((item) => (
              <Link
                key={item.href}
                href={item.href}
                aria-current={location === item.href || location.startsWith(`${item.href}/`) ? 'page' : undefined}
              >
                {item.label}
              </Link>
            ))}
        </nav>
        <div className="account">
          {signedIn ? (
            <>
              <NotificationBell />
              <TenantSwitcher />
              <Link href="/tenants" className="who" title="Mes organisations">
                {greetingName(profile)}
              </Link>
              <button type="button" className="btn ghost" onClick={() => void logout()}>
                Se déconnecter
              </button>
            </>
          ) : (
            <Link href="/login" className="btn ghost">
              Se connecter
            </Link>
          )}
        </div>
      </header>
      {!online.value && (
        <div className="banner offline" role="status">
          Hors ligne — l’application reste utilisable, les données affichées peuvent dater.
        </div>
      )}
      {online.value && localDataMode.value && (
        <div className="banner offline" role="status">
          Serveur injoignable — mode données locales : les informations affichées viennent du cache ou d’exemples.
        </div>
      )}
      {maintenanceNotice.value && (
        <div className="banner refused" role="alert">
          {maintenanceNotice.value}
        </div>
      )}
      {mockApiMode.value && (
        <div className="banner sample" role="status">
          Mode API simulée — données d’exemple, aucune donnée réelle.{' '}
          <button type="button" className="link" onClick={() => void setMockMode(false)}>
            Quitter le mode simulé
          </button>
        </div>
      )}
      {(samplesOnScreen.value > 0 || mockApiMode.value) && (
        <div className="banner sample-wide" role="status" data-testid="sample-banner">
          {SAMPLE_BANNER}
        </div>
      )}
      {pendingWrites.value > 0 && (
        <div className="banner offline" role="status">
          {pendingWrites.value === 1
            ? '1 modification en attente d’envoi'
            : `${pendingWrites.value} modifications en attente d’envoi`}
        </div>
      )}
      {refusedWrite.value && (
        <div className="banner refused" role="alert">
          Modification refusée par le serveur : {refusedWrite.value}{' '}
          <button type="button" className="link" onClick={() => (refusedWrite.value = null)}>
            Fermer
          </button>
        </div>
      )}
      {updateAvailable.value && (
        <div className="banner update" role="status">
          Nouvelle version disponible —{' '}
          <button type="button" className="link" onClick={reloadToUpdate}>
            Recharger
          </button>
        </div>
      )}
      {signedIn && <NotificationToast />}
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <footer className="footer">
        <span>Vigie — gestion des risques et des vulnérabilités</span>
        <p className="data-notice" lang="en">
          This product uses data from the NVD API but is not endorsed or certified by the NVD.{' '}
          <span lang="fr">
            Données CVE : NVD, programme CVE, catalogue KEV de la CISA, scores EPSS de FIRST, liste CWE de MITRE.
          </span>
        </p>
      </footer>
    </div>
  );
}
