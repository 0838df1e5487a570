import { useState, type FormEvent } from 'react';
import { useLocation, useSearch } from 'wouter';
import { login, loginErrorMessage, validateLogin } from './api/login.ts';

/** §2 query flags of /login and what each one tells the user. */
const FLAG_MESSAGES: [string, string][] = [
  ['session_expired', 'Votre session a expiré. Veuillez vous reconnecter.'],
  ['logout_error', 'La déconnexion ne s’est pas terminée correctement. Reconnectez-vous pour continuer.'],
  ['profile_error', 'Impossible de récupérer le profil utilisateur après connexion'],
  ['auth_failed', 'Aucun profil valide n’a été trouvé pour ce compte.'],
];

export function LoginPage() {
  const [, navigate] = useLocation();
  const params = new URLSearchParams(useSearch());
  const flag = FLAG_MESSAGES.find(([name]) => params.has(name));
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = validateLogin({ username, password });
    if (invalid) return setError(invalid);
    setBusy(true);
    setError(null);
    try {
      await login({ username, password });
      navigate('/dashboard', { replace: true });
    } catch (err) {
      setError(loginErrorMessage(err));
      setBusy(false);
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
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="btn primary" disabled={busy}>
          {busy ? 'Connexion…' : 'Se connecter'}
        </button>
      </form>
    </section>
  );
}
