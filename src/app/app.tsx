import { Route, Switch } from 'wouter';
import { Layout } from './layout.tsx';
import { RequireAuth } from './require-auth.tsx';
import { LandingPage } from '../features/home/landing-page.tsx';
import { LoginPage } from '../features/auth/login-page.tsx';
import { ResetPasswordPage } from '../features/auth/reset-password-page.tsx';
import { DashboardPage } from '../features/dashboard/dashboard-page.tsx';
import { SettingsPage } from '../features/settings/settings-page.tsx';
import { UsersPage } from '../features/users/users-page.tsx';
import { NotificationsPage } from '../features/notifications/notifications-page.tsx';

export function App() {
  return (
    <Layout>
      <Switch>
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
        <Route path="/notifications">
          <RequireAuth>
            <NotificationsPage />
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
