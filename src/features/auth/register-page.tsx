import { useState } from 'react';
import { Link } from 'wouter';
import { TextField } from '../../components/form-field.tsx';
import { FormError, register, type RegisterInput } from '../../lib/auth/account.ts';
import { registrationOpen } from './api/registration.ts';
import { useForm } from '../../lib/use-form.ts';
import { useResource } from '../../lib/use-resource.ts';

const EMPTY: Required<Omit<RegisterInput, 'role'>> = {
  username: '',
  email: '',
  first_name: '',
  last_name: '',
  password: '',
  confirm_password: '',
};

/**
 * /register: self-registration, offered only while the security policy allows it (« Inscription libre autorisée »).
 * The account has no rights and no organisation until an administrator adds it to one; the page says so.
 */
export default function RegisterPage() {
  const open = useResource(async () => ({ data: await registrationOpen() }), []);
  const form = useForm(EMPTY, { id: 'register' });
  const [created, setCreated] = useState<string | null>(null);

  const send = async (values: typeof EMPTY) => {
    const profile = await register(values);
    setCreated(profile.username ?? values.username);
  };

  return (
    <section className="page narrow" aria-busy={open.loading}>
      <h1>Créer un compte</h1>
      {open.loading && <p role="status">Chargement…</p>}
      {open.data === false && (
        <p className="notice">
          L’inscription libre n’est pas ouverte sur cette plateforme : demandez un compte à un administrateur.{' '}
          <Link href="/login">Se connecter</Link>
        </p>
      )}
      {open.data === true && created && (
        <p className="notice" role="status">
          Compte « {created} » créé. Un administrateur doit encore vous ajouter à une organisation pour que vous voyiez
          ses données. <Link href="/login">Se connecter</Link>
        </p>
      )}
      {open.data === true && !created && (
        <form
          className="card form"
          aria-label="Créer un compte"
          onSubmit={form.onSubmit(send, {
            fieldErrors: (err) => (err instanceof FormError ? err.fields : {}),
          })}
          noValidate
        >
          <TextField form={form} name="username" label="Nom d’utilisateur *" autoComplete="username" />
          <TextField form={form} name="email" label="E-mail *" type="email" autoComplete="email" />
          <TextField form={form} name="first_name" label="Prénom" autoComplete="given-name" />
          <TextField form={form} name="last_name" label="Nom" autoComplete="family-name" />
          <TextField form={form} name="password" label="Mot de passe *" type="password" autoComplete="new-password" />
          <TextField
            form={form}
            name="confirm_password"
            label="Confirmation du mot de passe *"
            type="password"
            autoComplete="new-password"
          />
          {form.error && (
            <p className="error" role="alert">
              {form.error}
            </p>
          )}
          <button className="btn primary" type="submit" disabled={form.submitting}>
            Créer le compte
          </button>
          <p className="aside">
            Déjà un compte ? <Link href="/login">Se connecter</Link>
          </p>
        </form>
      )}
    </section>
  );
}
