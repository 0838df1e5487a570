// Paired wall screens (issue 22, docs/displays.md): what a display may show and how, for the server, the kiosk and
// the « Écrans » screen alike.

/** The kiosk's panels, in the order a new display shows them. */
export const DISPLAY_PANELS = [
  'vulnerabilities',
  'act',
  'kev',
  'threats',
  'tasks',
  'overdue',
  'risks',
  'events',
  'overview',
] as const;
export type DisplayPanel = (typeof DISPLAY_PANELS)[number];

/** Each panel's French name: the wall's titles and the « Écrans » choices say the same words. */
export const DISPLAY_PANEL_TITLES: Record<DisplayPanel, string> = {
  vulnerabilities: 'Vulnérabilités',
  act: 'À traiter maintenant',
  kev: 'Exploitées (KEV)',
  threats: 'Menaces',
  tasks: 'Tâches de fond',
  overdue: 'Actions en retard',
  risks: 'Carte des risques',
  events: 'Dernières alertes',
  overview: 'Vue d’ensemble',
};

export const DISPLAY_THEMES = ['dark', 'light'] as const;
export type DisplayTheme = (typeof DISPLAY_THEMES)[number];

export const DISPLAY_TEXT_SIZES = ['normal', 'large', 'xlarge'] as const;
export type DisplayTextSize = (typeof DISPLAY_TEXT_SIZES)[number];

/** Seconds each panel stays on screen. */
export const DEFAULT_ROTATION_S = 30;
export const MIN_ROTATION_S = 5;
export const MAX_ROTATION_S = 3600;

/** A display's name, in characters (contract/text.ts charCount). */
export const MAX_DISPLAY_NAME = 100;

/** What the wall's « Dernières alertes » panel lists at most (GET /api/dashboard/events/). */
export const WALL_EVENTS_LIMIT = 8;

/** `Display` (docs/displays.md), as the server sends it. */
export interface Display {
  id: string | number;
  name: string;
  tenants: { id: string; name: string }[];
  /** Read defensively: a newer server may name a panel this client does not know. */
  panels: string[];
  rotation_s: number;
  theme: DisplayTheme;
  text_size: DisplayTextSize;
  created_at: string;
  /** The approver's username. */
  created_by: string | null;
  last_seen_at: string | null;
  last_ip: string | null;
  version: string | null;
  revoked_at: string | null;
}
