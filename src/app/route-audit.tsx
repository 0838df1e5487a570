import { useEffect } from 'react';
// wouter's browser location patches history.pushState/replaceState to dispatch the events listened to below.
import 'wouter/use-browser-location';
import { recordAuditEvent, startScreenVisit } from '../lib/audit-log.ts';

/** wouter dispatches these on window for its navigations; the browser sends popstate and hashchange. */
const LOCATION_EVENTS = ['popstate', 'pushState', 'replaceState', 'hashchange'] as const;

/**
 * Records `route_change` (spec §3, info) for the screen shown now and for every in-app navigation after it: the path
 * only, never the query string (a reset link carries its token there) nor the fragment. A change of query alone
 * (a list's filters) is no navigation. Returns the uninstaller.
 */
export function watchRoutes(): () => void {
  let current: string | null = null;
  const check = () => {
    // pathname never holds the query string nor the fragment.
    const path = location.pathname;
    if (path === current) return;
    const from = current;
    current = path;
    startScreenVisit(path);
    recordAuditEvent('route_change', { path, from }, 'info');
  };
  check();
  for (const type of LOCATION_EVENTS) window.addEventListener(type, check);
  return () => {
    for (const type of LOCATION_EVENTS) window.removeEventListener(type, check);
  };
}

/**
 * Mounted once by the app: listens to the location itself rather than through a router hook, so a navigation does
 * not re-render the component that mounts it.
 */
export function useRouteAudit(): void {
  useEffect(() => watchRoutes(), []);
}

/** The same, as a component (renders nothing). */
export function RouteAudit() {
  useRouteAudit();
  return null;
}
