import { Link, useSearch } from 'wouter';
import { useSignals } from '@preact/signals-react/runtime';
import { isAuthenticated } from '../../lib/auth/session.ts';

export function LandingPage() {
  useSignals();
  const justLoggedOut = new URLSearchParams(useSearch()).has('logout');
  return (
    <section className="page hero">
      {justLoggedOut && (
        <p className="notice" role="status">
          Vous êtes déconnecté.
        </p>
      )}
      <h1>Vigie</h1>
      <p className="lead">
        Menaces, vulnérabilités, scans, actifs, projets et risques de toutes vos organisations, au même endroit — y
        compris sur un réseau capricieux.
      </p>
      <ul className="features">
        <li>Tableaux de bord des vulnérabilités et suivi des CVE</li>
        <li>Projets, plans de remédiation et actions correctives</li>
        <li>Fonctionne hors ligne, données toujours datées</li>
      </ul>
      {isAuthenticated.value ? (
        <Link href="/dashboard" className="btn primary">
          Ouvrir le tableau de bord
        </Link>
      ) : (
        <Link href="/login" className="btn primary">
          Se connecter
        </Link>
      )}
    </section>
  );
}
