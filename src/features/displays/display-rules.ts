import { charCount } from '../../../contract/text.ts';
import type { UserProfile } from '../../lib/auth/types.ts';
import {
  DISPLAY_PANELS,
  DISPLAY_PANEL_TITLES,
  MAX_DISPLAY_NAME as MAX_NAME_LENGTH,
  MAX_ROTATION_S,
  MIN_ROTATION_S,
  type DisplayPanel,
  type DisplayTextSize,
  type DisplayTheme,
} from '../../../contract/displays.ts';
import type { FieldErrors } from '../../lib/use-form.ts';
import { mayShowOnDisplays } from './permissions.ts';

/** The wall's panels (docs/displays.md « Managing screens »), in their default order: the kiosk's own list. */
export const PANELS = DISPLAY_PANELS;
export type Panel = DisplayPanel;

/** The panels' French names, as « Écrans » shows them. */
export const PANEL_LABELS: Record<Panel, string> = DISPLAY_PANEL_TITLES;

export const THEME_LABELS: Record<DisplayTheme, string> = { dark: 'Sombre', light: 'Clair' };

export const TEXT_SIZE_LABELS: Record<DisplayTextSize, string> = {
  normal: 'Normale',
  large: 'Grande',
  xlarge: 'Très grande',
};

export {
  DEFAULT_ROTATION_S,
  MAX_DISPLAY_NAME as MAX_NAME_LENGTH,
  MAX_ROTATION_S,
  MIN_ROTATION_S,
} from '../../../contract/displays.ts';

export interface TenantChoice {
  id: string;
  name: string;
}

/** The tenants a screen may show for this user: those they administer or manage, by name. */
export function managedTenants(profile: UserProfile | null | undefined): TenantChoice[] {
  if (!profile) return [];
  const names = new Map((profile.tenants ?? []).map((t) => [t.id, t.name]));
  for (const m of profile.tenant_memberships ?? [])
    if (!names.has(m.tenant_id)) names.set(m.tenant_id, m.tenant_name ?? m.tenant_id);
  if (profile.current_tenant && !names.has(profile.current_tenant.id))
    names.set(profile.current_tenant.id, profile.current_tenant.name);
  return [...names]
    .filter(([id]) => mayShowOnDisplays(profile, id))
    .map(([id, name]) => ({ id, name }))
    .sort((a, b) => a.name.localeCompare(b.name, 'fr'));
}

/**
 * A pairing code as typed or read from the QR code's URL (any case, spaces, with or without the dash) in the form
 * the screen shows it: `K7QH-4MZP`. Anything not 8 letters or digits comes back upper-cased, unchanged otherwise.
 */
export function normalizeCode(raw: string): string {
  const compact = raw.replace(/[\s-]+/g, '').toUpperCase();
  return /^[A-Z0-9]{8}$/.test(compact) ? `${compact.slice(0, 4)}-${compact.slice(4)}` : compact;
}

export function isCode(raw: string): boolean {
  return /^[A-Z0-9]{4}-[A-Z0-9]{4}$/.test(normalizeCode(raw));
}

/** The panels chosen, in the order of the list: every panel once, the chosen ones ticked. */
export interface PanelChoice {
  order: Panel[];
  chosen: Panel[];
}

/** A screen's panels as the list shows them: its own first, in its order, then the others in the default order. */
export function panelChoiceOf(panels: readonly string[] | undefined): PanelChoice {
  const own = (panels ?? []).filter((p): p is Panel => (PANELS as readonly string[]).includes(p));
  const chosen = own.filter((p, i) => own.indexOf(p) === i);
  if (!panels) return { order: [...PANELS], chosen: [...PANELS] };
  return { order: [...chosen, ...PANELS.filter((p) => !chosen.includes(p))], chosen };
}

/** The chosen panels in the list's order: what is sent. */
export function chosenPanels(choice: PanelChoice): Panel[] {
  return choice.order.filter((p) => choice.chosen.includes(p));
}

/** `panel` moved one place up (-1) or down (+1) in the order; the ends stay put. */
export function movePanel(order: readonly Panel[], panel: Panel, by: -1 | 1): Panel[] {
  const from = order.indexOf(panel);
  const to = from + by;
  if (from < 0 || to < 0 || to >= order.length) return [...order];
  const next = [...order];
  next[from] = order[to]!;
  next[to] = panel;
  return next;
}

/** What the forms edit: the server's field names, so its field messages land beside the right control. */
export interface DisplaySettings {
  name: string;
  tenants: string[];
  panels: PanelChoice;
  rotation_s: string;
  theme: DisplayTheme;
  text_size: DisplayTextSize;
}

export interface ApproveValues extends DisplaySettings {
  code: string;
}

/** The client's checks of a screen's settings, in French; an empty map when they pass. */
export function settingsErrors(values: DisplaySettings): FieldErrors {
  const errors: FieldErrors = {};
  const name = values.name.trim();
  if (!name) errors.name = 'Donnez un nom à l’écran.';
  else if (charCount(name) > MAX_NAME_LENGTH) errors.name = `Le nom compte au plus ${MAX_NAME_LENGTH} caractères.`;
  if (values.tenants.length === 0) errors.tenants = 'Choisissez au moins une organisation.';
  if (chosenPanels(values.panels).length === 0) errors.panels = 'Choisissez au moins un panneau.';
  const rotation = Number(values.rotation_s.trim());
  if (
    values.rotation_s.trim() === '' ||
    !Number.isInteger(rotation) ||
    rotation < MIN_ROTATION_S ||
    rotation > MAX_ROTATION_S
  )
    errors.rotation_s = `Indiquez un nombre entier de secondes entre ${MIN_ROTATION_S} et ${MAX_ROTATION_S}.`;
  return errors;
}

/** The approve form's checks: the code, then the settings. */
export function approveErrors(values: ApproveValues): FieldErrors {
  const errors = settingsErrors(values);
  if (!values.code.trim()) return { code: 'Saisissez le code affiché par l’écran.', ...errors };
  if (!isCode(values.code))
    return { code: 'Le code compte 8 lettres ou chiffres, comme K7QH-4MZP (le tiret est facultatif).', ...errors };
  return errors;
}

/** A screen's settings as the API takes them (POST and PATCH bodies). */
export function settingsBody(values: DisplaySettings) {
  return {
    name: values.name.trim(),
    tenants: [...values.tenants],
    panels: chosenPanels(values.panels),
    rotation_s: Number(values.rotation_s.trim()),
    theme: values.theme,
    text_size: values.text_size,
  };
}

const RELATIVE = new Intl.RelativeTimeFormat('fr-FR', { style: 'short', numeric: 'always' });

/**
 * When a screen was last seen: « il y a 3 min » within the last day, else `absolute` (a date). Never « à l’instant »:
 * under a minute reads « il y a moins d’une minute ».
 */
export function lastSeenText(iso: string, now: number, absolute: (iso: string) => string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '—';
  const minutes = Math.floor(Math.max(0, now - at) / 60_000);
  if (minutes < 1) return 'il y a moins d’une minute';
  if (minutes < 60) return RELATIVE.format(-minutes, 'minute');
  if (minutes < 24 * 60) return RELATIVE.format(-Math.floor(minutes / 60), 'hour');
  return absolute(iso);
}
