import { useEffect, useState } from 'react';
import { FieldError, SelectField, TextField } from '../../components/form-field.tsx';
import { optionsOf } from '../../components/select.tsx';
import type { Form } from '../../lib/use-form.ts';
import {
  MAX_NAME_LENGTH,
  MAX_ROTATION_S,
  MIN_ROTATION_S,
  movePanel,
  PANEL_LABELS,
  TEXT_SIZE_LABELS,
  THEME_LABELS,
  type DisplaySettings,
  type Panel,
  type PanelChoice,
  type TenantChoice,
} from './display-rules.ts';

/**
 * The settings a screen is paired with and edited by: its name, its tenants, its panels in order, the rotation,
 * theme and text size. `off`: nothing may be changed (a kept copy of the list); the form says why.
 */
export function SettingsFields<V extends DisplaySettings>({
  form,
  tenants,
  off,
}: {
  form: Form<V>;
  /** The tenants offered; `locked` ones are shown as they are but cannot be changed by this user. */
  tenants: (TenantChoice & { locked?: boolean })[];
  off: boolean;
}) {
  const { values, errors } = form;
  const tenantsError = `${form.id}-tenants-error`;
  return (
    <>
      <TextField
        form={form}
        name="name"
        label="Nom de l’écran"
        maxLength={MAX_NAME_LENGTH}
        autoComplete="off"
        placeholder="ex. Mur du SOC, salle de crise"
        disabled={off}
      />
      <TextField
        form={form}
        name="rotation_s"
        label="Rotation (secondes)"
        type="number"
        inputMode="numeric"
        min={MIN_ROTATION_S}
        max={MAX_ROTATION_S}
        step={1}
        disabled={off}
      />
      <SelectField form={form} name="theme" label="Thème" options={optionsOf(THEME_LABELS)} disabled={off} />
      <SelectField
        form={form}
        name="text_size"
        label="Taille du texte"
        options={optionsOf(TEXT_SIZE_LABELS)}
        disabled={off}
      />
      <fieldset
        className="display-tenants vm-wide"
        aria-describedby={errors.tenants ? tenantsError : undefined}
        aria-invalid={errors.tenants ? true : undefined}
      >
        <legend>Organisations affichées</legend>
        <div className="display-checks">
          {tenants.map((t) => (
            <label key={t.id} className="vm-check">
              <input
                type="checkbox"
                value={t.id}
                checked={values.tenants.includes(t.id)}
                disabled={off || t.locked}
                onChange={(e) =>
                  form.set(
                    'tenants',
                    e.target.checked ? [...values.tenants, t.id] : values.tenants.filter((id) => id !== t.id),
                  )
                }
              />
              {t.name}
            </label>
          ))}
        </div>
        <FieldError id={tenantsError} error={errors.tenants} />
      </fieldset>
      <PanelList
        id={`${form.id}-panels`}
        choice={values.panels}
        error={errors.panels}
        off={off}
        onChange={(next) => form.set('panels', next)}
      />
    </>
  );
}

/**
 * The panels as an ordered list: tick the ones to show, move them up and down; the wall shows the ticked ones in
 * this order. After a move the focus stays on the button used (or on its twin at an end), and the new place is
 * said aloud.
 */
function PanelList({
  id,
  choice,
  error,
  off,
  onChange,
}: {
  id: string;
  choice: PanelChoice;
  error: string | undefined;
  off: boolean;
  onChange: (next: PanelChoice) => void;
}) {
  const [moved, setMoved] = useState<{ panel: Panel; by: -1 | 1 } | null>(null);
  const { order, chosen } = choice;
  useEffect(() => {
    if (!moved) return;
    const button = (by: number) => document.getElementById(`${id}-${moved.panel}-${by < 0 ? 'up' : 'down'}`);
    const same = button(moved.by) as HTMLButtonElement | null;
    (same && !same.disabled ? same : button(-moved.by))?.focus();
  }, [moved, id]);

  const move = (panel: Panel, by: -1 | 1) => {
    onChange({ ...choice, order: movePanel(order, panel, by) });
    setMoved({ panel, by });
  };
  const errorId = `${id}-error`;
  return (
    <fieldset
      className="display-panels-field vm-wide"
      aria-describedby={error ? errorId : undefined}
      aria-invalid={error ? true : undefined}
    >
      <legend>Panneaux, dans l’ordre du mur</legend>
      <ol className="display-panels">
        {order.map((panel, index) => {
          const label = PANEL_LABELS[panel];
          return (
            <li key={panel}>
              <input
                type="checkbox"
                id={`${id}-${panel}`}
                checked={chosen.includes(panel)}
                disabled={off}
                onChange={(e) =>
                  onChange({
                    ...choice,
                    chosen: e.target.checked ? [...chosen, panel] : chosen.filter((p) => p !== panel),
                  })
                }
              />
              <label htmlFor={`${id}-${panel}`}>{label}</label>
              <span className="display-move">
                <button
                  type="button"
                  id={`${id}-${panel}-up`}
                  className="btn secondary small"
                  aria-label={`Monter : ${label}`}
                  disabled={off || index === 0}
                  onClick={() => move(panel, -1)}
                >
                  <span aria-hidden="true">↑</span>
                </button>
                <button
                  type="button"
                  id={`${id}-${panel}-down`}
                  className="btn secondary small"
                  aria-label={`Descendre : ${label}`}
                  disabled={off || index === order.length - 1}
                  onClick={() => move(panel, 1)}
                >
                  <span aria-hidden="true">↓</span>
                </button>
              </span>
            </li>
          );
        })}
      </ol>
      <p className="sr-only" role="status">
        {moved ? `${PANEL_LABELS[moved.panel]} : position ${order.indexOf(moved.panel) + 1} sur ${order.length}.` : ''}
      </p>
      <FieldError id={errorId} error={error} />
    </fieldset>
  );
}
