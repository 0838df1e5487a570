import { useState, type FormEvent } from 'react';
import { Link, useSearch } from 'wouter';
import { messageOf } from '../../lib/error-message.ts';
import { password } from '../../lib/auth/account.ts';

const messageOfForm = (err: unknown) => messageOf(err, { firstField: true });

/** /reset-password: ask for a link by email, or (with ?token=) choose the new password. */
export function ResetPasswordPage() {
  const token = new URLSearchParams(useSearch()).get('token');
  const [value, setValue] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = token ? await password.confirmReset(token, value) : await password.requestReset(value.trim());
      setDone(answer.detail);
    } catch (err) {
      setError(messageOfForm(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="page narrow">
      <h1>{token ? 'Nouveau mot de passe' : 'Mot de passe oublié'}</h1>
      {done ? (
        <p className="notice" role="status">
          {done} <Link href="/login">Se connecter</Link>
        </p>
      ) : (
        <form className="card form" onSubmit={(e) => void submit(e)}>
          <label htmlFor="reset-value">{token ? 'Nouveau mot de passe' : 'Email du compte'}</label>
          <input
            id="reset-value"
            type={token ? 'password' : 'email'}
            autoComplete={token ? 'new-password' : 'email'}
            value={value}
            onChange={(e) => setValue(e.target.value)}
            required
          />
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          <button className="btn primary" type="submit" disabled={busy || value === ''}>
            {token ? 'Enregistrer' : 'Recevoir un lien'}
          </button>
        </form>
      )}
    </section>
  );
}
