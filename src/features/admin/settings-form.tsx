import { useId, useMemo, useState, type ReactNode } from 'react';
import { fieldErrorsOf, useForm } from '../../lib/use-form.ts';
import { errorAria, FieldError, FormField } from '../../components/form-field.tsx';
import { ActionMessages } from '../../components/list-state.tsx';
import { Select } from '../../components/select.tsx';
import {
  changesOf,
  draftOf,
  validateDraft,
  type Draft,
  type DraftValue,
  type SettingGroup,
  type SettingSpec,
  type StoredValue,
} from './setting-specs.ts';

function timeZones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC', 'Europe/Paris'];
  }
}

function Control({
  spec,
  id,
  value,
  error,
  disabled,
  onChange,
}: {
  spec: SettingSpec;
  id: string;
  value: DraftValue;
  error: string | undefined;
  disabled: boolean;
  onChange: (value: DraftValue) => void;
}) {
  const aria = errorAria(`${id}-error`, error);
  const help = spec.help ? <span className="muted admin-help">{spec.help}</span> : null;
  switch (spec.kind) {
    case 'boolean':
      return (
        <div className="vm-field admin-toggle">
          <label className="vm-check" htmlFor={id}>
            <input
              id={id}
              type="checkbox"
              role="switch"
              name={spec.key}
              checked={value === true}
              disabled={disabled}
              onChange={(e) => onChange(e.target.checked)}
              {...aria}
            />
            {spec.label}
          </label>
          {help}
          <FieldError id={`${id}-error`} error={error} />
        </div>
      );
    case 'roles': {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <fieldset className="vm-field admin-roles" aria-describedby={error ? `${id}-error` : undefined}>
          <legend>{spec.label}</legend>
          {spec.options.map(([role, label]) => (
            <label key={role} className="vm-check">
              <input
                type="checkbox"
                name={`${spec.key}.${role}`}
                checked={chosen.includes(role)}
                disabled={disabled}
                onChange={(e) => {
                  const next = new Set(chosen);
                  if (e.target.checked) next.add(role);
                  else next.delete(role);
                  // The server's order, so an unchanged list compares equal.
                  onChange(spec.options.map(([r]) => r).filter((r) => next.has(r)));
                }}
              />
              {label}
            </label>
          ))}
          {help}
          <FieldError id={`${id}-error`} error={error} />
        </fieldset>
      );
    }
    default:
      return (
        <FormField id={id} label={spec.kind === 'integer' ? `${spec.label} (${spec.unit})` : spec.label} error={error}>
          {spec.kind === 'choice' ? (
            <Select
              id={id}
              name={spec.key}
              value={String(value)}
              disabled={disabled}
              options={spec.options}
              onChange={(e) => onChange(e.target.value)}
              {...aria}
            />
          ) : (
            <input
              id={id}
              name={spec.key}
              value={String(value)}
              disabled={disabled}
              {...(spec.kind === 'integer'
                ? { type: 'number', inputMode: 'numeric' as const, min: spec.min, max: spec.max, step: 1 }
                : spec.kind === 'email'
                  ? { type: 'email' }
                  : spec.kind === 'timezone'
                    ? { list: `${id}-zones`, autoComplete: 'off' }
                    : { maxLength: spec.maxLength })}
              onChange={(e) => onChange(e.target.value)}
              {...aria}
            />
          )}
          {spec.kind === 'timezone' && (
            <datalist id={`${id}-zones`}>
              {timeZones().map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
          )}
          {help}
        </FormField>
      );
  }
}

/**
 * A typed settings form (system settings, security policies): one control per setting, the server's ranges checked
 * before sending, only the changed keys sent, and the server's field errors shown next to each field.
 */
export function SettingsForm({
  groups,
  values,
  readOnly,
  onSave,
  warning,
  submitLabel = 'Enregistrer',
}: {
  groups: readonly SettingGroup[];
  values: Record<string, unknown>;
  readOnly: boolean;
  /** Sends the changes; answers every value as the server now holds them. */
  onSave: (changes: Record<string, StoredValue>) => Promise<Record<string, unknown>>;
  /** Shown above the buttons, from the form's current values (e.g. the maintenance warning). */
  warning?: (draft: Draft, saved: Draft) => ReactNode;
  submitLabel?: string;
}) {
  const id = useId();
  const initial = useMemo(() => draftOf(groups, values), [groups, values]);
  const [saved, setSaved] = useState<Draft>(initial);
  const form = useForm<Draft>(initial);
  const draft = form.values;
  const changes = changesOf(groups, saved, draft);
  const dirty = Object.keys(changes).length > 0;

  const send = async () => {
    if (!dirty) return;
    const next = draftOf(groups, await onSave(changes));
    setSaved(next);
    form.setValues(next);
    form.setNotice('Modifications enregistrées.');
  };

  return (
    <form
      className="admin-settings"
      onSubmit={form.onSubmit(send, {
        validate: (d) => validateDraft(groups, d),
        invalid: 'Certaines valeurs sont invalides : corrigez les champs signalés.',
        fieldErrors: (err) => fieldErrorsOf(err),
      })}
      noValidate
    >
      {groups.map((group, g) => (
        <fieldset key={group.title} className="card admin-group" disabled={readOnly}>
          <legend>{group.title}</legend>
          <div className="vm-form">
            {group.specs.map((spec) => (
              <Control
                key={spec.key}
                spec={spec}
                id={`${id}-${g}-${spec.key}`}
                value={draft[spec.key] ?? ''}
                error={form.errors[spec.key]}
                disabled={readOnly}
                onChange={(value) => form.set(spec.key, value)}
              />
            ))}
          </div>
        </fieldset>
      ))}
      {warning?.(draft, saved)}
      <ActionMessages notice={form.notice} error={form.error} />
      {!readOnly && (
        <div className="vm-form-actions">
          <button type="submit" className="btn primary" disabled={form.submitting || !dirty}>
            {form.submitting ? 'Enregistrement…' : submitLabel}
          </button>
          <button
            type="button"
            className="btn secondary"
            disabled={form.submitting || !dirty}
            onClick={() => {
              form.setValues(saved);
              form.setErrors({});
              form.setError(null);
            }}
          >
            Annuler les modifications
          </button>
        </div>
      )}
    </form>
  );
}
