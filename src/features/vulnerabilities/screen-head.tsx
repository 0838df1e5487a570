import { Link } from 'wouter';

/** A link to one of the vulnerability screens: its path and its French text. */
export type ScreenLink = readonly [href: string, text: string];

export const DASHBOARD_LINK: ScreenLink = ['/vulnerabilities', 'Tableau de bord'];
export const CVE_SEARCH_LINK: ScreenLink = ['/cve', 'Rechercher une CVE'];

/** The head of a vulnerability screen: its title, and the links to the other screens. */
export function ScreenHead({ title, links }: { title: string; links: readonly ScreenLink[] }) {
  return (
    <div className="vuln-head">
      <h1>{title}</h1>
      <nav className="vuln-actions" aria-label="Écrans des vulnérabilités">
        {links.map(([href, text]) => (
          <Link key={href} href={href} className="btn secondary">
            {text}
          </Link>
        ))}
      </nav>
    </div>
  );
}
