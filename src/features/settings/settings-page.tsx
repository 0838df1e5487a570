import { useEffect, useState, type FormEvent } from 'react';
import { useSignals } from '@preact/signals-react/runtime';
import { session } from '../../lib/auth/session.ts';
import { password, twoFactor, updateMyProfile } from '../../lib/auth/account.ts';
import { messageOf } from '../../lib/error-message.ts';
import { ApiError, type DataOrigin } from '../../lib/api-client.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';

function ProfileForm() {
  useSignals();
  const profile = session.value?.profile;
  const [firstName, setFirstName] = useState(profile?.first_name ?? '');
  const [lastName, setLastName] = useState(profile?.last_name ?? '');
  const [email, setEmail] = useState(profile?.email ?? '');
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await updateMyProfile({ first_name: firstName, last_name: lastName, email });
      setStatus({ ok: true, text: 'Profil enregistré.' });
    } catch (err) {
      setStatus({ ok: false, text: messageOf(err) });
    }
  };
  return (
    <form className="card form" onSubmit={(e) => void submit(e)} aria-labelledby="profile-title">
      <h2 id="profile-title">Profil</h2>
      <label htmlFor="first_name">Prénom</label>
      <input
        id="first_name"
        value={firstName}
        onChange={(e) => setFirstName(e.target.value)}
        autoComplete="given-name"
      />
      <label htmlFor="last_name">Nom</label>
      <input id="last_name" value={lastName} onChange={(e) => setLastName(e.target.value)} autoComplete="family-name" />
      <label htmlFor="email">Email</label>
      <input id="email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="email" />
      {status && (
        <p className={status.ok ? 'notice' : 'error'} role={status.ok ? 'status' : 'alert'}>
          {status.text}
        </p>
      )}
      <button className="btn primary" type="submit">
        Enregistrer
      </button>
    </form>
  );
}

function PasswordForm() {
  const [oldPassword, setOld] = useState('');
  const [newPassword, setNew] = useState('');
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const answer = await password.change(oldPassword, newPassword);
      setStatus({ ok: true, text: answer.detail });
      setOld('');
      setNew('');
    } catch (err) {
      const fields = err instanceof ApiError ? Object.values(err.fields)[0]?.[0] : undefined;
      setStatus({ ok: false, text: fields ?? messageOf(err) });
    }
  };
  return (
    <form className="card form" onSubmit={(e) => void submit(e)} aria-labelledby="password-title">
      <h2 id="password-title">Mot de passe</h2>
      <label htmlFor="old_password">Mot de passe actuel</label>
      <input
        id="old_password"
        type="password"
        value={oldPassword}
        onChange={(e) => setOld(e.target.value)}
        autoComplete="current-password"
      />
      <label htmlFor="new_password">Nouveau mot de passe</label>
      <input
        id="new_password"
        type="password"
        value={newPassword}
        onChange={(e) => setNew(e.target.value)}
        autoComplete="new-password"
      />
      {status && (
        <p className={status.ok ? 'notice' : 'error'} role={status.ok ? 'status' : 'alert'}>
          {status.text}
        </p>
      )}
      <button className="btn primary" type="submit">
        Changer le mot de passe
      </button>
    </form>
  );
}

function TwoFactorCard() {
  const [enabled, setEnabled] = useState<boolean | null>(null);
  const [origin, setOrigin] = useState<DataOrigin | undefined>(undefined);
  const [setup, setSetup] = useState<{ secret: string; otpauth_url: string } | null>(null);
  const [code, setCode] = useState('');
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);

  useEffect(() => {
    twoFactor.status().then(
      (s) => {
        setEnabled(s.data.enabled);
        setOrigin(s.origin);
      },
      () => setEnabled(null),
    );
  }, []);

  const start = async () => {
    try {
      setSetup(await twoFactor.enable());
      setStatus(null);
    } catch (err) {
      setStatus({ ok: false, text: messageOf(err) });
    }
  };
  const confirm = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const answer = setup ? await twoFactor.verify(code) : await twoFactor.disable({ token: code });
      setEnabled(answer.enabled);
      setSetup(null);
      setCode('');
      setStatus({
        ok: true,
        text: answer.enabled ? 'Double authentification activée.' : 'Double authentification désactivée.',
      });
    } catch (err) {
      setStatus({ ok: false, text: messageOf(err) });
    }
  };

  return (
    <section className="card form" aria-labelledby="tfa-title">
      <h2 id="tfa-title">Double authentification</h2>
      <DataOriginNote origin={origin} />
      <p>{enabled === null ? 'État inconnu (serveur injoignable).' : enabled ? 'Activée.' : 'Désactivée.'}</p>
      {enabled === false && !setup && (
        <button className="btn primary" type="button" onClick={() => void start()}>
          Activer
        </button>
      )}
      {setup && (
        <p>
          Ajoutez ce compte dans votre application d’authentification avec la clé <code>{setup.secret}</code>, puis
          saisissez le code affiché.
        </p>
      )}
      {(setup || enabled) && (
        <form onSubmit={(e) => void confirm(e)} className="form">
          <label htmlFor="tfa-code">Code à 6 chiffres</label>
          <input
            id="tfa-code"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
          />
          <button className="btn primary" type="submit">
            {setup ? 'Confirmer l’activation' : 'Désactiver'}
          </button>
        </form>
      )}
      {status && (
        <p className={status.ok ? 'notice' : 'error'} role={status.ok ? 'status' : 'alert'}>
          {status.text}
        </p>
      )}
    </section>
  );
}

/** The signed-in user's own settings: profile, password, two-factor authentication. */
export function SettingsPage() {
  return (
    <section className="page settings">
      <h1>Préférences</h1>
      <div className="settings-grid">
        <ProfileForm />
        <PasswordForm />
        <TwoFactorCard />
      </div>
    </section>
  );
}
