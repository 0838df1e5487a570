import type { ReactNode } from 'react';
import { recordUiAction } from '../lib/audit-log.ts';
import { RowAction } from './row-action.tsx';

/**
 * The inline "delete this row?" question of a list, with its confirm and cancel buttons. A confirmation is recorded
 * in the audit trail (`ui_action` delete_confirmed) before `onConfirm` runs.
 */
export function ConfirmDelete({
  name,
  question,
  busy,
  onConfirm,
  onCancel,
}: {
  /** The row's name, in the group's accessible name "Supprimer <name>". */
  name: string;
  question: string;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const confirm = () => {
    recordUiAction('delete_confirmed', { name, question });
    onConfirm();
  };
  return (
    <div className="vm-actions" role="group" aria-label={`Supprimer ${name}`}>
      <span>{question}</span>
      <button type="button" className="btn danger small" disabled={busy} onClick={confirm}>
        Oui, supprimer
      </button>
      <button type="button" className="btn secondary small" onClick={onCancel}>
        Non
      </button>
    </div>
  );
}

/**
 * The actions cell of a row that can be deleted: the row's own actions (`children`) then "Supprimer", which asks
 * for confirmation in place (`confirming`) before `onConfirm`.
 */
export function DeletableRowActions({
  name,
  question,
  confirming,
  busy,
  disableDelete = false,
  onAsk,
  onConfirm,
  onCancel,
  children,
}: {
  name: string;
  question: string;
  confirming: boolean;
  busy: boolean;
  /** The "Supprimer" button is disabled while the row is busy. */
  disableDelete?: boolean;
  onAsk: () => void;
  onConfirm: () => void;
  onCancel: () => void;
  children?: ReactNode;
}) {
  if (confirming)
    return <ConfirmDelete name={name} question={question} busy={busy} onConfirm={onConfirm} onCancel={onCancel} />;
  return (
    <div className="vm-actions">
      {children}
      <RowAction
        action="delete"
        text="Supprimer"
        name={name}
        disabled={disableDelete ? busy : undefined}
        onClick={onAsk}
      />
    </div>
  );
}
