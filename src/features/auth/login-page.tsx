import { useEffect, useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { login, LoginError, loginErrorNotice, loginFormError, type LoginNotice } from './api/login.ts';
import { ProfileError } from '../../lib/auth/profile.ts';
import { OneTimeCodeInput } from '../../components/one-time-code-input.tsx';
import { registrationOpen } from './api/registration.ts';

/** spec §2 query flags of /login and what each one tells the user. */
const FLAG_MESSAGES: [string, string][] = [
  ['session_expired', 'Votre session a expiré. Veuillez vous reconnecter.'],
  ['logout_error', 'La déconnexion ne s’est pas terminée correctement. Reconnectez-vous pour continuer.'],
  ['profile_error', 'Impossible de récupérer le profil utilisateur après connexion'],
  ['auth_failed', 'Aucun profil valide n’a été trouvé pour ce compte.'],
];

/**
 * Where a sign-in leads: the protected page the visitor was sent away from (`next`), only a path of this site
 * (never `//host` nor a URL: no open redirect), else the dashboard.
 */
export function returnPath(next: string | null): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/dashboard';
  if (next === '/login' || next.startsWith('/login?')) return '/dashboard';
  return next;
}

export function LoginPage() {
  const [, navigate] = useLocation();
  const params = new URLSearchParams(useSearch());
  const flag = FLAG_MESSAGES.find(([name]) => params.has(name));
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [otp, setOtp] = useState('');
  const [needsOtp, setNeedsOtp] = useState(false);
  /** A recovery code typed in place of the app's code (the app is lost or out of reach). */
  const [recovery, setRecovery] = useState(false);
  // The app's code or a recovery code: switching clears what was typed in the other.
  const chooseRecovery = (on: boolean) => {
    setRecovery(on);
    setOtp('');
  };
  // « Créer un compte » only while the policy allows self-registration.
  const [registration, setRegistration] = useState(false);
  useEffect(() => {
    let live = true;
    void registrationOpen().then((open) => live && setRegistration(open));
    return () => {
      live = false;
    };
  }, []);
  const [error, setError] = useState<LoginNotice | null>(null);
  const [busy, setBusy] = useState(false);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = loginFormError({ username, password });
    if (invalid) return setError({ french: invalid });
    setBusy(true);
    setError(null);
    try {
      await login({ username, password, ...(needsOtp && otp ? { otp } : {}) });
      navigate(returnPath(params.get('next')), { replace: true });
    } catch (err) {
      setBusy(false);
      if (err instanceof ProfileError) {
        // spec §2: the page says why through its query flag.
        navigate(`/login?${err.flag}=true`, { replace: true });
        setError({ french: err.message });
        return;
      }
      if (err instanceof LoginError && err.twoFactorRequired) setNeedsOtp(true);
      setError(loginErrorNotice(err));
    }
  };

  return (
    <section className="page narrow">
      <h1>Connexion</h1>
      {flag && (
        <p className="notice warn" role="status">
          {flag[1]}
        </p>
      )}
      <form className="card form" onSubmit={(e) => void onSubmit(e)} noValidate>
        <label htmlFor="username">Nom d'utilisateur</label>
        <input
          id="username"
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          required
        />
        <label htmlFor="password">Mot de passe</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
        {needsOtp && !recovery && (
          <>
            <label htmlFor="otp">Code de double authentification</label>
            <OneTimeCodeInput id="otp" name="otp" pattern="[0-9]*" value={otp} onChange={setOtp} required />
            <button type="button" className="link" onClick={() => chooseRecovery(true)}>
              Application indisponible ? Utiliser un code de secours
            </button>
          </>
        )}
        {needsOtp && recovery && (
          <>
            <label htmlFor="recovery-code">Code de secours</label>
            <input
              id="recovery-code"
              name="otp"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              maxLength={16}
              value={otp}
              onChange={(e) => setOtp(e.target.value)}
              aria-describedby="recovery-hint"
              required
            />
            <p id="recovery-hint" className="hint">
              Un des dix codes remis à l’activation (par exemple « abcde-fghjk ») ; chacun ne sert qu’une fois.
            </p>
            <button type="button" className="link" onClick={() => chooseRecovery(false)}>
              Utiliser le code de l’application
            </button>
          </>
        )}
        {error && (
          <p className="error" role="alert">
            {/* spec §8's own words, as they are (marked English for screen readers), then their French sense. */}
            {error.spec && (
              <>
                <span lang="en">{error.spec}</span>
                {' — '}
              </>
            )}
            {error.french}
          </p>
        )}
        <button type="submit" className="btn primary" disabled={busy}>
          {busy ? 'Connexion…' : 'Se connecter'}
        </button>
      </form>
      <p className="aside">
        <Link href="/reset-password">Mot de passe oublié ?</Link>
        {registration && (
          <>
            {' · '}
            <Link href="/register">Créer un compte</Link>
          </>
        )}
      </p>
    </section>
  );
}
