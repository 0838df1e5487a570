import { DISPLAY_PANELS, DISPLAY_TEXT_SIZES, DISPLAY_THEMES } from '../domain/displays.ts';
import type { DisplayView } from '../repositories/displays.ts';
import { Choice, Nullable, Type, type Static } from '../schemas/common.ts';

const DisplayTenantSchema = Type.Object({ id: Type.String({ format: 'uuid' }), name: Type.String() });

/** A paired wall screen (docs/displays.md): what the « Écrans » screen lists and the screen itself applies. */
export const DisplaySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    tenants: Type.Array(DisplayTenantSchema, { description: 'Organisations montrées, la première par défaut' }),
    panels: Type.Array(Choice(DISPLAY_PANELS), { description: 'Panneaux, dans leur ordre de rotation' }),
    rotation_s: Type.Integer({ description: 'Secondes par panneau' }),
    theme: Choice(DISPLAY_THEMES),
    text_size: Choice(DISPLAY_TEXT_SIZES),
    created_at: Type.String({ format: 'date-time' }),
    created_by: Nullable(Type.String({ description: 'Identifiant de la personne qui l’a appairé' })),
    last_seen_at: Nullable(Type.String({ format: 'date-time' })),
    last_ip: Nullable(Type.String()),
    version: Nullable(Type.String({ description: 'Version de l’application sur l’écran (X-Vigie-Version)' })),
    revoked_at: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'Display' },
);
export type DisplayOut = Static<typeof DisplaySchema>;

/** Exactly these fields leave the server: never a credential's digest. */
export function presentDisplay({ row, tenants, createdBy }: DisplayView): DisplayOut {
  return {
    id: row.id,
    name: row.name,
    tenants: tenants.map((t) => ({ id: t.id, name: t.name })),
    panels: row.panels,
    rotation_s: row.rotationS,
    theme: row.theme,
    text_size: row.textSize,
    created_at: row.createdAt.toISOString(),
    created_by: createdBy,
    last_seen_at: row.lastSeenAt?.toISOString() ?? null,
    last_ip: row.lastIp,
    version: row.version,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}
