import type { ReactNode } from 'react';
import { Redirect } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { isAuthenticated } from '../features/auth/session.ts';

/** Protected areas (/dashboard, /tenants, /organizations) send signed-out visitors to /login. */
export function RequireAuth({ children }: { children: ReactNode }) {
  useSignals();
  if (!isAuthenticated.value) return <Redirect to="/login" replace />;
  return <>{children}</>;
}
