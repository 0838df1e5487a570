import type { ReactNode } from 'react';
import { Redirect, useLocation, useSearch } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { isAuthenticated, sessionExpired } from '../lib/auth/session.ts';

/**
 * Protected areas send signed-out visitors to /login, naming where they were going (`next`): a wall screen's QR code
 * scanned on a phone that was signed out leads back to its pairing form, code included, once signed in.
 */
export function RequireAuth({ children }: { children: ReactNode }) {
  useSignals();
  const [path] = useLocation();
  const search = useSearch();
  if (!isAuthenticated.value) {
    const params = new URLSearchParams();
    if (sessionExpired.value) params.set('session_expired', 'true');
    if (path !== '/' && path !== '/dashboard') params.set('next', search ? `${path}?${search}` : path);
    const query = params.toString();
    return <Redirect to={query ? `/login?${query}` : '/login'} replace />;
  }
  return <>{children}</>;
}
