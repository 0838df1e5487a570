/**
 * CISA's SSVC decision (Stakeholder-Specific Vulnerability Categorization, the CISA guide's tree): four decision
 * points, the decision, and their French words. docs/ssvc.md explains how Vigie reads each point from what it knows.
 */
export const SSVC_DECISIONS = ['track', 'track_star', 'attend', 'act'] as const;
export type SsvcDecision = (typeof SSVC_DECISIONS)[number];

export type Exploitation = 'none' | 'poc' | 'active';
export type Automatable = 'no' | 'yes';
export type TechnicalImpact = 'partial' | 'total';
export type MissionWellbeing = 'low' | 'medium' | 'high';

export interface SsvcPoints {
  exploitation: Exploitation;
  automatable: Automatable;
  technicalImpact: TechnicalImpact;
  missionWellbeing: MissionWellbeing;
}

export const SSVC_LABELS: Record<SsvcDecision, string> = {
  track: 'Suivre (Track)',
  track_star: 'Suivre de près (Track*)',
  attend: 'Traiter en priorité (Attend)',
  act: 'À traiter maintenant (Act)',
};

export const SSVC_POINT_LABELS = {
  exploitation: { none: 'aucune', poc: 'preuve de concept', active: 'active' },
  automatable: { no: 'non', yes: 'oui' },
  technicalImpact: { partial: 'partiel', total: 'total' },
  missionWellbeing: { low: 'faible', medium: 'moyen', high: 'élevé' },
} as const;

type Row = Record<MissionWellbeing, SsvcDecision>;
const T: Row = { low: 'track', medium: 'track', high: 'track' };

/** The CISA tree as a table: exploitation → automatable → technical impact → mission & well-being → decision. */
export const SSVC_TABLE: Record<Exploitation, Record<Automatable, Record<TechnicalImpact, Row>>> = {
  none: {
    no: { partial: T, total: { low: 'track', medium: 'track', high: 'track_star' } },
    yes: { partial: T, total: { low: 'track', medium: 'track', high: 'attend' } },
  },
  poc: {
    no: {
      partial: { low: 'track', medium: 'track', high: 'track_star' },
      total: { low: 'track', medium: 'track_star', high: 'attend' },
    },
    yes: {
      partial: { low: 'track', medium: 'track', high: 'attend' },
      total: { low: 'track', medium: 'track_star', high: 'attend' },
    },
  },
  active: {
    no: {
      partial: { low: 'track', medium: 'track', high: 'attend' },
      total: { low: 'track', medium: 'attend', high: 'act' },
    },
    yes: {
      partial: { low: 'attend', medium: 'attend', high: 'act' },
      total: { low: 'attend', medium: 'act', high: 'act' },
    },
  },
};

export const ssvcDecision = (p: SsvcPoints): SsvcDecision =>
  SSVC_TABLE[p.exploitation][p.automatable][p.technicalImpact][p.missionWellbeing];
