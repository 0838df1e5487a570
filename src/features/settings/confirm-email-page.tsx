import { useEffect, useState } from 'react';
import { Link, useSearch } from 'wouter';
import { confirmEmail } from '../../lib/auth/account.ts';
import { reloadProfile } from '../../lib/auth/session.ts';
import { messageOf } from '../../lib/error-message.ts';

// Development's StrictMode runs an effect twice: one request per token, or the second would find it spent.
const confirmations = new Map<string, ReturnType<typeof confirmEmail>>();
function confirmOnce(token: string): ReturnType<typeof confirmEmail> {
  let pending = confirmations.get(token);
  if (!pending) {
    pending = confirmEmail(token);
    confirmations.set(token, pending);
  }
  return pending;
}

type Outcome = { state: 'sending' } | { state: 'done'; message: string } | { state: 'failed'; message: string };

/**
 * /confirm-email?token=…: the link mailed to a new address. Posts the token once (no session needed: the mail may be
 * opened on another device) and says « Adresse e-mail confirmée. » or why not.
 */
export default function ConfirmEmailPage() {
  const token = new URLSearchParams(useSearch()).get('token') ?? '';
  const [outcome, setOutcome] = useState<Outcome>({ state: 'sending' });

  useEffect(() => {
    let current = true;
    const confirm = async () => {
      try {
        const answer = await confirmOnce(token);
        // A session open in this browser shows the new address (it is another account's only if so signed in).
        await reloadProfile().catch(() => {});
        if (current) setOutcome({ state: 'done', message: answer.detail });
      } catch (err) {
        if (current) setOutcome({ state: 'failed', message: messageOf(err) });
      }
    };
    void confirm();
    return () => {
      current = false;
    };
  }, [token]);

  return (
    <section className="page narrow">
      <h1>Nouvelle adresse e-mail</h1>
      {outcome.state === 'sending' ? (
        <p role="status">Confirmation en cours…</p>
      ) : (
        <p
          className={outcome.state === 'done' ? 'notice' : 'error'}
          role={outcome.state === 'done' ? 'status' : 'alert'}
        >
          {outcome.message} <Link href="/settings">Préférences</Link>
        </p>
      )}
    </section>
  );
}
