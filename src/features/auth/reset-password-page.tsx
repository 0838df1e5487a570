import { useState } from 'react';
import { Link, useSearch } from 'wouter';
import { messageOf } from '../../lib/error-message.ts';
import { password } from '../../lib/auth/account.ts';
import { useForm } from '../../lib/use-form.ts';

/** /reset-password: ask for a link by email, or (with ?token=) choose the new password. */
export function ResetPasswordPage() {
  const token = new URLSearchParams(useSearch()).get('token');
  const form = useForm({ value: '' }, { id: 'reset' });
  const [done, setDone] = useState<string | null>(null);
  const { value } = form.values;

  const send = async () => {
    const answer = token ? await password.confirmReset(token, value) : await password.requestReset(value.trim());
    setDone(answer.detail);
  };

  return (
    <section className="page narrow">
      <h1>{token ? 'Nouveau mot de passe' : 'Mot de passe oublié'}</h1>
      {done ? (
        <p className="notice" role="status">
          {done} <Link href="/login">Se connecter</Link>
        </p>
      ) : (
        <form
          className="card form"
          onSubmit={form.onSubmit(send, { message: (err) => messageOf(err, { firstField: true }) })}
        >
          <label htmlFor="reset-value">{token ? 'Nouveau mot de passe' : 'Email du compte'}</label>
          <input
            {...form.control('value')}
            type={token ? 'password' : 'email'}
            autoComplete={token ? 'new-password' : 'email'}
            required
          />
          {form.error && (
            <p className="error" role="alert">
              {form.error}
            </p>
          )}
          <button className="btn primary" type="submit" disabled={form.submitting || value === ''}>
            {token ? 'Enregistrer' : 'Recevoir un lien'}
          </button>
        </form>
      )}
    </section>
  );
}
