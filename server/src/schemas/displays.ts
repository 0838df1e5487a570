/**
 * Wall screens (/api/displays/, docs/displays.md): the approval and change bodies, the pairing's poll header, and
 * their checks with the French messages.
 */
import {
  DEFAULT_ROTATION_S,
  DISPLAY_PANELS,
  DISPLAY_TEXT_SIZES,
  DISPLAY_THEMES,
  MAX_DISPLAY_NAME,
  MAX_DISPLAY_TENANTS,
  MAX_ROTATION_S,
  MIN_ROTATION_S,
  type DisplayPanel,
} from '../domain/displays.ts';
import { charCount } from '../../../contract/text.ts';
import { isUuid, UUID_PATTERN } from '../lib/uuid.ts';
import type { DisplaySettings } from '../repositories/displays.ts';
import { Choice, Type, type Static } from './common.ts';
import { invalid } from './fields.ts';

export const MESSAGES = {
  /** The same for an unknown, expired, used or malformed code: the answer tells nothing about codes. */
  code: 'Code d’appairage inconnu ou expiré.',
  name: `Le nom de l’écran est obligatoire (${MAX_DISPLAY_NAME} caractères au plus).`,
  tenants: `Organisations invalides : de 1 à ${MAX_DISPLAY_TENANTS} identifiants (UUID) sont attendus.`,
  panels: `Panneaux invalides : au moins un parmi ${DISPLAY_PANELS.join(', ')}.`,
  rotation: `Durée de rotation invalide : un nombre entier de secondes entre ${MIN_ROTATION_S} et ${MAX_ROTATION_S}.`,
  theme: `Thème invalide : ${DISPLAY_THEMES.join(' ou ')}.`,
  textSize: `Taille du texte invalide : ${DISPLAY_TEXT_SIZES.join(', ')}.`,
  pairingsLimited: 'Trop de demandes d’appairage : réessayez dans quelques minutes.',
  revoked: 'Écran révoqué : il ne peut plus être modifié ; appairez-le à nouveau.',
  active: 'Écran encore actif : révoquez-le avant de le retirer de la liste.',
} as const;

export const DisplayParams = Type.Object({ id: Type.String({ pattern: UUID_PATTERN, description: 'Identifiant' }) });
export const PairingParams = DisplayParams;

/** The poll secret a screen received with its pairing. */
export const PairingHeaders = Type.Object({
  'x-display-pairing': Type.Optional(Type.String({ maxLength: 200, description: 'Secret de suivi de l’appairage' })),
});

const settingFields = {
  name: Type.String({ maxLength: 4096, errorMessage: MESSAGES.name }),
  tenants: Type.Array(Type.String({ pattern: UUID_PATTERN, errorMessage: MESSAGES.tenants }), {
    minItems: 1,
    maxItems: MAX_DISPLAY_TENANTS,
    description: 'Organisations montrées (défaut : l’organisation courante)',
    errorMessage: MESSAGES.tenants,
  }),
  panels: Type.Array(Choice(DISPLAY_PANELS, { errorMessage: MESSAGES.panels }), {
    minItems: 1,
    maxItems: 50,
    description: `Panneaux dans leur ordre (défaut : ${DISPLAY_PANELS.join(', ')})`,
    errorMessage: MESSAGES.panels,
  }),
  rotation_s: Type.Integer({
    minimum: MIN_ROTATION_S,
    maximum: MAX_ROTATION_S,
    description: `Secondes par panneau (défaut ${DEFAULT_ROTATION_S})`,
    errorMessage: MESSAGES.rotation,
  }),
  theme: Choice(DISPLAY_THEMES, { description: 'Défaut : dark', errorMessage: MESSAGES.theme }),
  text_size: Choice(DISPLAY_TEXT_SIZES, { description: 'Défaut : normal', errorMessage: MESSAGES.textSize }),
};

/** An approval: the code the screen shows, and what it will show. */
export const ApproveBody = Type.Object(
  {
    code: Type.String({
      maxLength: 64,
      description: 'Code affiché par l’écran (K7QH-4MZP)',
      errorMessage: MESSAGES.code,
    }),
    name: settingFields.name,
    tenants: Type.Optional(settingFields.tenants),
    panels: Type.Optional(settingFields.panels),
    rotation_s: Type.Optional(settingFields.rotation_s),
    theme: Type.Optional(settingFields.theme),
    text_size: Type.Optional(settingFields.text_size),
  },
  { additionalProperties: false, title: 'DisplayApproval' },
);
export type ApproveBody = Static<typeof ApproveBody>;

/** A change: any of the settings. */
export const ChangeBody = Type.Object(
  {
    name: Type.Optional(settingFields.name),
    tenants: Type.Optional(settingFields.tenants),
    panels: Type.Optional(settingFields.panels),
    rotation_s: Type.Optional(settingFields.rotation_s),
    theme: Type.Optional(settingFields.theme),
    text_size: Type.Optional(settingFields.text_size),
  },
  { additionalProperties: false, title: 'DisplayChange' },
);
export type ChangeBody = Static<typeof ChangeBody>;

const uniq = <T>(values: readonly T[]): T[] => values.filter((v, i) => values.indexOf(v) === i);

function checkedName(raw: string): string {
  const name = raw.trim();
  if (name === '' || charCount(name) > MAX_DISPLAY_NAME) throw invalid('name', MESSAGES.name);
  return name;
}

function checkedTenants(raw: readonly string[]): string[] {
  const ids = uniq(raw.map((id) => id.toLowerCase()));
  if (ids.some((id) => !isUuid(id))) throw invalid('tenants', MESSAGES.tenants);
  return ids;
}

/** The settings of a change, checked: trimmed name, tenants and panels once each, in the order given. */
export function readChange(body: ChangeBody): Partial<DisplaySettings> {
  return {
    ...(body.name === undefined ? {} : { name: checkedName(body.name) }),
    ...(body.tenants === undefined ? {} : { tenantIds: checkedTenants(body.tenants) }),
    ...(body.panels === undefined ? {} : { panels: uniq<DisplayPanel>(body.panels) }),
    ...(body.rotation_s === undefined ? {} : { rotationS: body.rotation_s }),
    ...(body.theme === undefined ? {} : { theme: body.theme }),
    ...(body.text_size === undefined ? {} : { textSize: body.text_size }),
  };
}

/** The settings of an approval, checked, with their defaults (`currentTenant` when no tenant is named). */
export function readApproval(body: ApproveBody, currentTenant: string): DisplaySettings {
  const change = readChange(body);
  return {
    name: change.name ?? checkedName(''),
    tenantIds: change.tenantIds ?? [currentTenant],
    panels: change.panels ?? [...DISPLAY_PANELS],
    rotationS: change.rotationS ?? DEFAULT_ROTATION_S,
    theme: change.theme ?? 'dark',
    textSize: change.textSize ?? 'normal',
  };
}
