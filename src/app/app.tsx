import { Component, lazy, Suspense, type ComponentType, type LazyExoticComponent, type ReactNode } from 'react';
import { Route, Switch } from 'wouter';
import { Layout } from './layout.tsx';
import { RequireAuth } from './require-auth.tsx';
import { LandingPage } from '../features/home/landing-page.tsx';
import { LoginPage } from '../features/auth/login-page.tsx';
import { ResetPasswordPage } from '../features/auth/reset-password-page.tsx';
import { DashboardPage } from '../features/dashboard/dashboard-page.tsx';
import { SettingsPage } from '../features/settings/settings-page.tsx';
import { UsersPage } from '../features/users/users-page.tsx';

// Domain screens are separate chunks: the first paint downloads none of them (nor the chart library).
const VulnerabilityDashboardPage = lazy(() => import('../features/vulnerabilities/dashboard-page.tsx'));
const VulnerabilityListPage = lazy(() => import('../features/vulnerabilities/list-page.tsx'));
const VulnerabilityDetailPage = lazy(() => import('../features/vulnerabilities/detail-page.tsx'));
const CveSearchPage = lazy(() => import('../features/vulnerabilities/cve-search-page.tsx'));
const ScansPage = lazy(() => import('../features/scans/scans-page.tsx'));
const AssetsPage = lazy(() => import('../features/assets/assets-page.tsx'));
const ThreatsPage = lazy(() => import('../features/threats/threats-page.tsx'));
const TasksPage = lazy(() => import('../features/tasks/tasks-page.tsx'));
const ProjectsPage = lazy(() => import('../features/projects/projects-page.tsx'));
const ProjectPage = lazy(() => import('../features/projects/project-page.tsx'));
const AuditPage = lazy(() => import('../features/audit/audit-page.tsx'));
const NotificationsPage = lazy(() => import('../features/notifications/notifications-page.tsx'));
// The blog list needs no Markdown; the post and the editor load marked and DOMPurify in a chunk of their own.
const BlogListPage = lazy(() => import('../features/blog/blog-list-page.tsx'));
const BlogPostPage = lazy(() => import('../features/blog/blog-post-page.tsx'));
const BlogEditorPage = lazy(() => import('../features/blog/blog-editor-page.tsx'));
const KioskPage = lazy(() => import('./kiosk/kiosk-page.tsx'));

const PROTECTED_LAZY: [string, LazyExoticComponent<ComponentType>][] = [
  ['/vulnerabilities', VulnerabilityDashboardPage],
  ['/vulnerabilities/list', VulnerabilityListPage],
  ['/vulnerabilities/:id', VulnerabilityDetailPage],
  ['/cve', CveSearchPage],
  ['/cve/:cveId', CveSearchPage],
  ['/scans', ScansPage],
  ['/assets', AssetsPage],
  ['/threats', ThreatsPage],
  ['/tasks', TasksPage],
  ['/projects', ProjectsPage],
  ['/projects/:id', ProjectPage],
  ['/audit', AuditPage],
  ['/notifications', NotificationsPage],
  ['/blog', BlogListPage],
  // Before /blog/:slug, which would take "new" for a slug.
  ['/blog/new', BlogEditorPage],
  ['/blog/:slug/edit', BlogEditorPage],
  ['/blog/:slug', BlogPostPage],
];

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

export function App() {
  return (
    <Switch>
      <Route path="/kiosk">
        <RequireAuth>
          <ScreenBoundary>
            <Suspense fallback={<Loading />}>
              <KioskPage />
            </Suspense>
          </ScreenBoundary>
        </RequireAuth>
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
      <Switch>
        {PROTECTED_LAZY.map(([path, Page]) => (
          <Route key={path} path={path}>
            <RequireAuth>
              <ScreenBoundary>
                <Suspense fallback={<Loading />}>
                  <Page />
                </Suspense>
              </ScreenBoundary>
            </RequireAuth>
          </Route>
        ))}
        <Route path="/" component={LandingPage} />
        <Route path="/login" component={LoginPage} />
        <Route path="/reset-password" component={ResetPasswordPage} />
        <Route path="/dashboard">
          <RequireAuth>
            <DashboardPage />
          </RequireAuth>
        </Route>
        <Route path="/admin/users">
          <RequireAuth>
            <UsersPage />
          </RequireAuth>
        </Route>
        <Route path="/settings">
          <RequireAuth>
            <SettingsPage />
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
