import { useState, type FormEvent, type ReactNode } from 'react';
import { useSignals } from '@preact/signals-react/runtime';
import { session } from '../../lib/auth/session.ts';
import { password, twoFactor, updateMyProfile } from '../../lib/auth/account.ts';
import { messageOf } from '../../lib/error-message.ts';
import { useForm } from '../../lib/use-form.ts';
import { useResource } from '../../lib/use-resource.ts';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { OneTimeCodeInput } from '../../components/one-time-code-input.tsx';
import { grouped, QrCode } from '../../components/qr-code.tsx';

/** What the last submit of a card said: its success, or its error. */
function Outcome({ notice, error }: { notice: string | null; error: string | null }) {
  if (!notice && !error) return null;
  return (
    <p className={error ? 'error' : 'notice'} role={error ? 'alert' : 'status'}>
      {error ?? notice}
    </p>
  );
}

/** An address as the server compares it: trimmed, the domain in lower case (the local part may be case-sensitive). */
function sameAddress(a: string, b: string): boolean {
  const normal = (email: string) => {
    const trimmed = email.trim();
    const at = trimmed.lastIndexOf('@');
    return at < 0 ? trimmed : trimmed.slice(0, at) + trimmed.slice(at).toLowerCase();
  };
  return normal(a) === normal(b);
}

function ProfileForm() {
  useSignals();
  const profile = session.value?.profile;
  const form = useForm({
    first_name: profile?.first_name ?? '',
    last_name: profile?.last_name ?? '',
    email: profile?.email ?? '',
    current_password: '',
  });
  // A new address needs the current password, and changes only once the link mailed to it is opened.
  const emailChanged = !sameAddress(form.values.email, profile?.email ?? '');
  const send = async ({ current_password, ...values }: typeof form.values) => {
    const { profile: saved, notice } = await updateMyProfile(emailChanged ? { ...values, current_password } : values);
    form.setValues({ ...values, email: saved.email, current_password: '' });
    form.setNotice(notice ?? 'Profil enregistré.');
  };
  return (
    <form className="card form" onSubmit={form.onSubmit(send)} aria-labelledby="profile-title">
      <h2 id="profile-title">Profil</h2>
      <label htmlFor={`${form.id}-first_name`}>Prénom</label>
      <input {...form.control('first_name')} autoComplete="given-name" />
      <label htmlFor={`${form.id}-last_name`}>Nom</label>
      <input {...form.control('last_name')} autoComplete="family-name" />
      <label htmlFor={`${form.id}-email`}>Email</label>
      <input {...form.control('email')} type="email" autoComplete="email" />
      {emailChanged && (
        <>
          <label htmlFor={`${form.id}-current_password`}>Mot de passe actuel (pour changer d’adresse e-mail)</label>
          <input {...form.control('current_password')} type="password" autoComplete="current-password" required />
        </>
      )}
      <Outcome notice={form.notice} error={form.error} />
      <button className="btn primary" type="submit">
        Enregistrer
      </button>
    </form>
  );
}

function PasswordForm() {
  const form = useForm({ old_password: '', new_password: '' });
  const send = async ({ old_password, new_password }: typeof form.values) => {
    const answer = await password.change(old_password, new_password);
    form.setValues({ old_password: '', new_password: '' });
    form.setNotice(answer.detail);
  };
  return (
    <form
      className="card form"
      onSubmit={form.onSubmit(send, { message: (err) => messageOf(err, { firstField: true }) })}
      aria-labelledby="password-title"
    >
      <h2 id="password-title">Mot de passe</h2>
      <label htmlFor={`${form.id}-old_password`}>Mot de passe actuel</label>
      <input {...form.control('old_password')} type="password" autoComplete="current-password" />
      <label htmlFor={`${form.id}-new_password`}>Nouveau mot de passe</label>
      <input {...form.control('new_password')} type="password" autoComplete="new-password" />
      <Outcome notice={form.notice} error={form.error} />
      <button className="btn primary" type="submit">
        Changer le mot de passe
      </button>
    </form>
  );
}

/** The recovery codes just made: shown once, with how to keep them. */
function RecoveryCodeList({ codes }: { codes: string[] }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="recovery-codes" role="group" aria-labelledby="tfa-codes-title">
      <h3 id="tfa-codes-title">Codes de secours</h3>
      <p>
        Gardez-les en lieu sûr (gestionnaire de mots de passe, papier) : chacun remplace une fois le code de
        l’application, si vous la perdez. Ils ne seront plus affichés.
      </p>
      <ol>
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
      <button
        className="btn"
        type="button"
        onClick={() =>
          void navigator.clipboard?.writeText(codes.join('\n')).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Codes copiés' : 'Copier les codes'}
      </button>
    </div>
  );
}

function TwoFactorCard() {
  const status = useResource(twoFactor.status, []);
  /** The state after this screen changed it, else the one read (null: unknown). */
  const [changed, setChanged] = useState<boolean | null>(null);
  const enabled = changed ?? status.data?.enabled ?? null;
  const [setup, setSetup] = useState<{ secret: string; otpauth_url: string } | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [code, setCode] = useState('');
  const [outcome, setOutcome] = useState<{ notice: string | null; error: string | null }>({
    notice: null,
    error: null,
  });
  const left = codes ? codes.length : changed === null ? status.data?.recovery_codes_left : undefined;

  const start = async () => {
    try {
      setSetup(await twoFactor.enable());
      setCodes(null);
      setOutcome({ notice: null, error: null });
    } catch (err) {
      setOutcome({ notice: null, error: messageOf(err) });
    }
  };
  const confirm = async (e: FormEvent) => {
    e.preventDefault();
    try {
      if (setup) {
        const answer = await twoFactor.verify(code);
        setChanged(true);
        setCodes(answer.recovery_codes);
        setOutcome({ notice: 'Double authentification activée.', error: null });
      } else {
        await twoFactor.disable({ token: code });
        setChanged(false);
        setCodes(null);
        setOutcome({ notice: 'Double authentification désactivée.', error: null });
      }
      setSetup(null);
      setCode('');
    } catch (err) {
      setOutcome({ notice: null, error: messageOf(err) });
    }
  };
  const renew = async () => {
    try {
      const answer = await twoFactor.recoveryCodes({ token: code });
      setCodes(answer.recovery_codes);
      setCode('');
      setOutcome({ notice: 'Nouveaux codes de secours : les précédents ne fonctionnent plus.', error: null });
    } catch (err) {
      setOutcome({ notice: null, error: messageOf(err) });
    }
  };

  return (
    <section className="card form" aria-labelledby="tfa-title">
      <h2 id="tfa-title">Double authentification</h2>
      <DataOriginNote origin={status.origin} />
      <p>{enabled === null ? 'État inconnu (serveur injoignable).' : enabled ? 'Activée.' : 'Désactivée.'}</p>
      {enabled && left !== undefined && !codes && (
        <p className={left <= 2 ? 'notice warn' : 'muted'}>
          {left === 0
            ? 'Aucun code de secours restant : générez-en de nouveaux.'
            : `Codes de secours restants : ${left}.`}
        </p>
      )}
      {enabled === false && !setup && (
        <button className="btn primary" type="button" onClick={() => void start()}>
          Activer
        </button>
      )}
      {setup && (
        <div className="tfa-setup">
          <QrCode value={setup.otpauth_url} label="QR code à scanner avec votre application d’authentification" />
          <div>
            <p>Scannez ce QR code avec votre application d’authentification, ou saisissez la clé :</p>
            <p>
              <code className="tfa-secret" aria-label={`Clé : ${setup.secret.split('').join(' ')}`}>
                {grouped(setup.secret)}
              </code>
            </p>
            <p>Puis saisissez le code à 6 chiffres affiché.</p>
          </div>
        </div>
      )}
      {codes && <RecoveryCodeList codes={codes} />}
      {(setup || enabled) && (
        <form onSubmit={(e) => void confirm(e)} className="form">
          <label htmlFor="tfa-code">Code à 6 chiffres</label>
          <OneTimeCodeInput id="tfa-code" value={code} onChange={setCode} />
          <div className="actions">
            <button className={setup ? 'btn primary' : 'btn danger'} type="submit">
              {setup ? 'Confirmer l’activation' : 'Désactiver'}
            </button>
            {!setup && (
              <button className="btn" type="button" onClick={() => void renew()}>
                Nouveaux codes de secours
              </button>
            )}
          </div>
        </form>
      )}
      <Outcome {...outcome} />
    </section>
  );
}

/**
 * The signed-in user's own settings: profile, password, two-factor authentication; `children` are cards the app adds
 * (the developer switches, for administrators).
 */
export function SettingsPage({ children }: { children?: ReactNode }) {
  return (
    <section className="page settings">
      <h1>Préférences</h1>
      <div className="settings-grid">
        <ProfileForm />
        <PasswordForm />
        <TwoFactorCard />
        {children}
      </div>
    </section>
  );
}
