import type { ReactNode } from 'react';
import { Redirect } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { isAuthenticated, sessionExpired } from '../lib/auth/session.ts';

/** Protected areas (/dashboard, /tenants, /organizations) send signed-out visitors to /login. */
export function RequireAuth({ children }: { children: ReactNode }) {
  useSignals();
  if (!isAuthenticated.value) {
    return <Redirect to={sessionExpired.value ? '/login?session_expired=true' : '/login'} replace />;
  }
  return <>{children}</>;
}
