import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { greetingName, isAuthenticated, logout, session } from '../features/auth/session.ts';
import { reloadToUpdate, updateAvailable } from './update-prompt.ts';
import { online } from './connectivity.ts';

export function Layout({ children }: { children: ReactNode }) {
  useSignals();
  const profile = session.value?.profile;

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Aller au contenu
      </a>
      <header className="topbar">
        <Link href="/" className="brand" aria-label="Vigie, accueil">
          <img src="/favicon.svg" alt="" width="28" height="28" />
          <span>Vigie</span>
        </Link>
        <nav aria-label="Navigation principale" className="topnav">
          {isAuthenticated.value && <Link href="/dashboard">Tableau de bord</Link>}
        </nav>
        <div className="account">
          {isAuthenticated.value && profile ? (
            <>
              <span className="who">{greetingName(profile)}</span>
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
      {updateAvailable.value && (
        <div className="banner update" role="status">
          Nouvelle version disponible —{' '}
          <button type="button" className="link" onClick={reloadToUpdate}>
            Recharger
          </button>
        </div>
      )}
      <main id="main" tabIndex={-1}>
        {children}
      </main>
      <footer className="footer">Vigie — gestion des risques et des vulnérabilités</footer>
    </div>
  );
}
