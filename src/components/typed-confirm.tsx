import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { messageOf } from '../lib/error-message.ts';
import { ActionMessages } from './list-state.tsx';
import { ProgressBar } from './progress-bar.tsx';

/**
 * A dangerous action confirmed by typing a word the server asks for (a domain, « RESTAURER »): the button works only
 * once `matches` accepts what was typed; `confirm` gets the typed text, its failure is said in French.
 */
export function TypedConfirm({
  title,
  children,
  fieldLabel,
  matches,
  confirmLabel,
  busyLabel,
  progressLabel,
  confirm,
  onCancel,
}: {
  title: ReactNode;
  /** What the action does and what to type. */
  children: ReactNode;
  fieldLabel: string;
  matches: (typed: string) => boolean;
  confirmLabel: string;
  busyLabel: string;
  /** While it runs: an indeterminate progress bar of this name, and the form locked. */
  progressLabel?: string;
  confirm: (typed: string) => Promise<void>;
  onCancel: () => void;
}) {
  const id = useId();
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const ok = matches(typed);
  const lock = busy && progressLabel !== undefined;

  async function run() {
    setBusy(true);
    setError(null);
    try {
      await confirm(typed.trim());
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="card admin-danger" role="group" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p>{children}</p>
      <form
        className="admin-inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (ok && !busy) void run();
        }}
      >
        <label htmlFor={`${id}-confirm`}>{fieldLabel}</label>
        <input
          id={`${id}-confirm`}
          ref={input}
          value={typed}
          autoComplete="off"
          spellCheck={false}
          disabled={lock || undefined}
          onChange={(e) => setTyped(e.target.value)}
        />
        <button type="submit" className="btn danger" disabled={!ok || busy}>
          {busy ? busyLabel : confirmLabel}
        </button>
        <button type="button" className="btn secondary" disabled={lock || undefined} onClick={onCancel}>
          Annuler
        </button>
      </form>
      {lock && <ProgressBar label={progressLabel} value={null} showValue={false} />}
      <ActionMessages error={error} />
    </div>
  );
}
