import { useState } from 'react';
import { messageOf } from '../lib/error-message.ts';

/**
 * State of the actions run on a list's rows: the row being worked on (`busy`), the last success notice and the
 * last error. `run` clears both messages, marks the row busy while `action` runs and keeps its error, if any.
 */
export function useRowActions<Id>() {
  const [busy, setBusy] = useState<Id | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  async function run(id: Id, action: () => Promise<void>): Promise<void> {
    setBusy(id);
    setActionError(null);
    setNotice(null);
    try {
      await action();
    } catch (err) {
      setActionError(messageOf(err));
    } finally {
      setBusy(null);
    }
  }

  return { busy, notice, setNotice, actionError, run };
}
