import {
  Component,
  lazy,
  Suspense,
  useEffect,
  type ComponentType,
  type LazyExoticComponent,
  type ReactNode,
} from 'react';
import { Link, Route, Switch } from 'wouter';
import { navigate } from 'wouter/use-browser-location';
import { useSignals } from '@preact/signals-react/runtime';
import { setClientEnvironment } from '../lib/api-client.ts';
import { twoFactorSetupNotice } from '../lib/two-factor-gate.ts';
import { Layout } from './layout.tsx';
import { RequireAuth } from './require-auth.tsx';
import { useRouteAudit } from './route-audit.tsx';
import { LandingPage } from '../features/home/landing-page.tsx';
import { LoginPage } from '../features/auth/login-page.tsx';
import { onAuthChange } from '../lib/auth/session.ts';
import { clearAdminLocalData } from '../features/admin/admin-local.ts';
import { clearUsersLocalData } from '../features/users/users-local.ts';

// Domain screens are separate chunks: the first paint downloads none of them (nor the chart library).
const DashboardPage = lazy(() => import('../features/dashboard/dashboard-page.tsx'));
const VulnerabilityDashboardPage = lazy(() => import('../features/vulnerabilities/dashboard-page.tsx'));
const VulnerabilityListPage = lazy(() => import('../features/vulnerabilities/list-page.tsx'));
const VulnerabilityDetailPage = lazy(() => import('../features/vulnerabilities/detail-page.tsx'));
const CveSearchPage = lazy(() => import('../features/vulnerabilities/cve-search-page.tsx'));
const ScansPage = lazy(() => import('../features/scans/scans-page.tsx'));
const ScanPage = lazy(() => import('../features/scans/scan-page.tsx'));
const AssetPage = lazy(() => import('../features/assets/asset-page.tsx'));
const AssetsPage = lazy(() => import('../features/assets/assets-page.tsx'));
const ThreatsPage = lazy(() => import('../features/threats/threats-page.tsx'));
const TasksPage = lazy(() => import('../features/tasks/tasks-page.tsx'));
const ProjectsPage = lazy(() => import('../features/projects/projects-page.tsx'));
const ProjectPage = lazy(() => import('../features/projects/project-page.tsx'));
const OrganizationsPage = lazy(() => import('../features/organizations/organizations-page.tsx'));
const AuditPage = lazy(() => import('../features/audit/audit-page.tsx'));
const NotificationsPage = lazy(() => import('../features/notifications/notifications-page.tsx'));
// The blog list needs no Markdown; the post and the editor load marked and DOMPurify in a chunk of their own.
const BlogListPage = lazy(() => import('../features/blog/blog-list-page.tsx'));
const BlogPostPage = lazy(() => import('../features/blog/blog-post-page.tsx'));
const BlogEditorPage = lazy(() => import('../features/blog/blog-editor-page.tsx'));
const KioskPage = lazy(() => import('./kiosk/kiosk-page.tsx'));
// « Écrans »: pairing and managing wall screens (the wall's QR code leads to /displays?code=…).
const DisplaysPage = lazy(() => import('../features/displays/displays-page.tsx'));
// Public, rarely visited: a chunk of its own.
const RegisterPage = lazy(() => import('../features/auth/register-page.tsx'));
// Opened from a mail, maybe without a session: public, and a chunk of its own.
const ConfirmEmailPage = lazy(() => import('../features/settings/confirm-email-page.tsx'));
// Rarely the first screen: kept out of what the first visit loads.
const ResetPasswordPage = lazy(() =>
  import('../features/auth/reset-password-page.tsx').then((m) => ({ default: m.ResetPasswordPage })),
);
const SettingsPage = lazy(() => import('./settings-screen.tsx'));
// The administration console: its frame (sub-navigation) and each screen are chunks of their own.
const AdminLayout = lazy(() => import('../features/admin/admin-shell.tsx'));
const AdminHomePage = lazy(() => import('../features/admin/admin-shell.tsx').then((m) => ({ default: m.AdminHome })));
const AdminTenantsPage = lazy(() => import('../features/admin/tenants-page.tsx'));
const AdminUsersPage = lazy(() => import('../features/users/users-page.tsx'));
const AdminModelsPage = lazy(() => import('../features/admin/models-page.tsx'));
const AdminSettingsPage = lazy(() => import('../features/admin/system-settings-page.tsx'));
const AdminSecurityPage = lazy(() => import('../features/admin/security-page.tsx'));
const AdminPermissionsPage = lazy(() => import('../features/admin/permissions-page.tsx'));
const AdminConfigPage = lazy(() => import('../features/admin/config-page.tsx'));
const AdminLogsPage = lazy(() => import('../features/admin/logs-page.tsx'));
const AdminBackupsPage = lazy(() => import('../features/admin/backups-page.tsx'));
const AdminStatusPage = lazy(() => import('../features/admin/status-page.tsx'));

const PROTECTED_LAZY: [string, LazyExoticComponent<ComponentType>][] = [
  ['/vulnerabilities', VulnerabilityDashboardPage],
  ['/vulnerabilities/list', VulnerabilityListPage],
  ['/vulnerabilities/:id', VulnerabilityDetailPage],
  ['/cve', CveSearchPage],
  ['/cve/:cveId', CveSearchPage],
  ['/scans', ScansPage],
  ['/scans/:id', ScanPage],
  ['/assets', AssetsPage],
  ['/assets/:id', AssetPage],
  ['/threats', ThreatsPage],
  ['/tasks', TasksPage],
  ['/projects', ProjectsPage],
  ['/projects/:id', ProjectPage],
  // spec §2's protected areas: the user's own tenants (both names lead to the same screen).
  ['/tenants', OrganizationsPage],
  ['/organizations', OrganizationsPage],
  ['/audit', AuditPage],
  ['/notifications', NotificationsPage],
  ['/displays', DisplaysPage],
  ['/settings', SettingsPage],
  ['/blog', BlogListPage],
  // Before /blog/:slug, which would take "new" for a slug.
  ['/blog/new', BlogEditorPage],
  ['/blog/:slug/edit', BlogEditorPage],
  ['/blog/:slug', BlogPostPage],
];

const ADMIN_LAZY: [string, LazyExoticComponent<ComponentType>][] = [
  ['/admin', AdminHomePage],
  ['/admin/tenants', AdminTenantsPage],
  ['/admin/users', AdminUsersPage],
  ['/admin/models', AdminModelsPage],
  ['/admin/settings', AdminSettingsPage],
  ['/admin/security', AdminSecurityPage],
  ['/admin/permissions', AdminPermissionsPage],
  ['/admin/config', AdminConfigPage],
  ['/admin/logs', AdminLogsPage],
  ['/admin/backups', AdminBackupsPage],
  ['/admin/status', AdminStatusPage],
];

/** Where the account's two-factor authentication is set up. */
export const TWO_FACTOR_SETUP_PATH = '/settings';

/**
 * The server's « set up 2FA first » gate (403 two_factor_setup_required): take the user to the setup screen instead of
 * signing out or bouncing through the sign-in page. Returns the uninstaller.
 */
export function installTwoFactorGate(go: (to: string) => void = navigate): () => void {
  setClientEnvironment({
    onTwoFactorSetupRequired: () => {
      if (location.pathname !== TWO_FACTOR_SETUP_PATH) go(TWO_FACTOR_SETUP_PATH);
    },
  });
  return () => setClientEnvironment({ onTwoFactorSetupRequired: () => {} });
}

/** At sign-out the administration's local copies go, like the other local data. */
export function installSignOutCleanup(): () => void {
  return onAuthChange((signedIn) => {
    if (signedIn) return;
    twoFactorSetupNotice.value = null;
    void clearAdminLocalData();
    void clearUsersLocalData();
  });
}

/** The gate's message, above every screen until 2FA is on. */
export function TwoFactorNotice() {
  useSignals();
  const message = twoFactorSetupNotice.value;
  if (!message) return null;
  return (
    <div className="banner refused" role="alert">
      {message} <Link href={TWO_FACTOR_SETUP_PATH}>Configurer la double authentification</Link>
    </div>
  );
}

/**
 * A screen's chunk can fail to load (offline before it was ever cached, or a deploy removed it): say so in
 * French and offer a reload instead of a blank page.
 */
class ScreenBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <section className="page narrow" role="alert">
        <h1>Écran indisponible</h1>
        <p>Cet écran n’a pas pu être chargé. Vérifiez votre connexion puis rechargez la page.</p>
        <button type="button" className="btn" onClick={() => window.location.reload()}>
          Recharger
        </button>
      </section>
    );
  }
}

function Loading() {
  return (
    <p className="page" role="status">
      Chargement…
    </p>
  );
}

/** A screen whose code is a chunk of its own: « Chargement… » while it loads, a French notice if it cannot. */
function LazyScreen({ children }: { children: ReactNode }) {
  return (
    <ScreenBoundary>
      <Suspense fallback={<Loading />}>{children}</Suspense>
    </ScreenBoundary>
  );
}

export function App() {
  useRouteAudit();
  useEffect(() => {
    const offGate = installTwoFactorGate();
    const offCleanup = installSignOutCleanup();
    return () => {
      offGate();
      offCleanup();
    };
  }, []);
  return (
    <Switch>
      {/* Signed in: a person's wall; without a session: a paired screen, or its pairing code (docs/displays.md). */}
      <Route path="/kiosk">
        <LazyScreen>
          <KioskPage />
        </LazyScreen>
      </Route>
      <Route>
        <MainApp />
      </Route>
    </Switch>
  );
}

function MainApp() {
  return (
    <Layout>
      <TwoFactorNotice />
      <Switch>
        {/* One route for the console, so its frame (sub-navigation) stays put while its screens load. */}
        <Route path="/admin/*?">
          <RequireAuth>
            <LazyScreen>
              <AdminLayout>
                <Suspense fallback={<Loading />}>
                  <Switch>
                    {ADMIN_LAZY.map(([path, Page]) => (
                      <Route key={path} path={path} component={Page} />
                    ))}
                    <Route>
                      <p>Cet écran d’administration n’existe pas.</p>
                    </Route>
                  </Switch>
                </Suspense>
              </AdminLayout>
            </LazyScreen>
          </RequireAuth>
        </Route>
        {PROTECTED_LAZY.map(([path, Page]) => (
          <Route key={path} path={path}>
            <RequireAuth>
              <LazyScreen>
                <Page />
              </LazyScreen>
            </RequireAuth>
          </Route>
        ))}
        <Route path="/" component={LandingPage} />
        <Route path="/login" component={LoginPage} />
        <Route path="/register">
          <LazyScreen>
            <RegisterPage />
          </LazyScreen>
        </Route>
        <Route path="/reset-password">
          <LazyScreen>
            <ResetPasswordPage />
          </LazyScreen>
        </Route>
        <Route path="/confirm-email">
          <LazyScreen>
            <ConfirmEmailPage />
          </LazyScreen>
        </Route>
        <Route path="/dashboard">
          <RequireAuth>
            <LazyScreen>
              <DashboardPage />
            </LazyScreen>
          </RequireAuth>
        </Route>
        <Route>
          <section className="page narrow">
            <h1>Page introuvable</h1>
            <p>
              Cette page n’existe pas. <a href="/">Retour à l’accueil</a>
            </p>
          </section>
        </Route>
      </Switch>
    </Layout>
  );
}
