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
    // An expired session keeps spec §4's exact address, /login?session_expired=true.
    if (sessionExpired.value) return <Redirect to="/login?session_expired=true" replace />;
    const next = path !== '/' && path !== '/dashboard' ? (search ? `${path}?${search}` : path) : null;
    return <Redirect to={next ? `/login?${new URLSearchParams({ next }).toString()}` : '/login'} replace />;
  }
  return <>{children}</>;
}
