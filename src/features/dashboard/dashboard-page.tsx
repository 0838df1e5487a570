import { useSignals } from '@preact/signals-react/runtime';
import { greetingName, session } from '../../lib/auth/session.ts';

const ROLE_LABELS: Record<string, string> = {
  admin: 'Administrateur',
  manager: 'Responsable',
  user: 'Utilisateur',
  readonly: 'Lecture seule',
  guest: 'Invité',
};

/** First-slice dashboard: proves sign-in end to end; the vulnerability dashboard replaces its body later. */
export function DashboardPage() {
  useSignals();
  const profile = session.value?.profile;
  if (!profile) return null;
  return (
    <section className="page">
      <h1>Bonjour, {greetingName(profile)}</h1>
      <dl className="card facts">
        <dt>Organisation</dt>
        <dd>{profile.current_tenant?.name ?? '—'}</dd>
        <dt>Rôle</dt>
        <dd>{ROLE_LABELS[profile.role ?? 'user'] ?? profile.role}</dd>
        <dt>Organisations accessibles</dt>
        <dd>{profile.tenants?.map((t) => t.name).join(', ') || '—'}</dd>
      </dl>
    </section>
  );
}
