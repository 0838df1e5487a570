import {
  SSVC_DECISIONS,
  ssvcDecision,
  type Automatable,
  type Exploitation,
  type MissionWellbeing,
  type SsvcDecision,
  type SsvcPoints,
  type TechnicalImpact,
} from '../../../contract/ssvc.ts';

// How Vigie reads CISA's SSVC decision points from what it holds about a finding (issue 21, docs/ssvc.md).

/**
 * EPSS probability from which a public exploit is taken as likely (Exploitation « poc »), while a tenant set none
 * (triage_settings.epss_threshold; migration 0029 holds the same number).
 */
export const DEFAULT_EPSS_THRESHOLD = 0.1;

/**
 * A decision as the database keeps it (vulnerabilities.ssvc_decision, migration 0029): its rank, 1 track … 4 act, so
 * that the list sorts by it; a resolved finding has none (0).
 */
export const ssvcRank = (decision: SsvcDecision): number => SSVC_DECISIONS.indexOf(decision) + 1;
export const ssvcOfRank = (rank: number | null): SsvcDecision | null => SSVC_DECISIONS[(rank ?? 0) - 1] ?? null;

export interface SsvcFacts {
  kev: boolean;
  epssScore: number | null;
  /** A reference of the CVE record tagged « Exploit » (NVD). */
  exploitReference: boolean;
  cvssVector: string | null;
  /** The asset's criticality (low … critical); null without an asset. */
  criticality: string | null;
  /** Reachable from the Internet; undefined while the asset does not say. */
  internetExposed?: boolean | undefined;
  epssThreshold?: number;
}

export interface SsvcAssessment {
  decision: SsvcDecision;
  points: SsvcPoints;
  /** Why each point has its value, in French, one sentence each. */
  reasons: string[];
}

const percent = new Intl.NumberFormat('fr-FR', { style: 'percent', maximumFractionDigits: 1 });

/** A CVSS vector's metrics (v2, v3.x or v4.0), and its version (2 for a vector without prefix). */
function metricsOf(vector: string): { version: number; m: Map<string, string> } {
  const parts = vector.trim().split('/');
  const prefix = /^CVSS:(\d)/.exec(parts[0] ?? '');
  const m = new Map<string, string>();
  for (const part of prefix ? parts.slice(1) : parts) {
    const [k, v] = part.split(':');
    if (k && v) m.set(k, v);
  }
  return { version: prefix ? Number(prefix[1]) : 2, m };
}

function exploitation(f: SsvcFacts, threshold: number): [Exploitation, string] {
  if (f.kev) return ['active', 'Exploitation active : la CVE figure au catalogue KEV de la CISA.'];
  if (f.epssScore !== null && f.epssScore >= threshold) {
    return [
      'poc',
      `Exploitation probable : EPSS ${percent.format(f.epssScore)}, au-dessus du seuil de ${percent.format(threshold)}.`,
    ];
  }
  if (f.exploitReference) return ['poc', 'Preuve de concept : une référence publique d’exploit est connue.'];
  return ['none', 'Aucune exploitation connue (hors KEV, EPSS sous le seuil, pas d’exploit public référencé).'];
}

function fromVector(vector: string | null): { automatable: [Automatable, string]; impact: [TechnicalImpact, string] } {
  if (!vector) {
    return {
      automatable: ['no', 'Automatisable : supposé non, faute de vecteur CVSS.'],
      impact: ['total', 'Impact technique : supposé total par prudence, faute de vecteur CVSS.'],
    };
  }
  const { version, m } = metricsOf(vector);
  const is = (k: string, v: string) => m.get(k) === v;
  const reach =
    version === 2
      ? is('AV', 'N') && is('AC', 'L') && is('Au', 'N')
      : is('AV', 'N') && is('AC', 'L') && is('PR', 'N') && is('UI', 'N') && (version < 4 || is('AT', 'N'));
  const total =
    version === 2
      ? is('C', 'C') && is('I', 'C')
      : version >= 4
        ? is('VC', 'H') && is('VI', 'H')
        : is('C', 'H') && is('I', 'H');
  return {
    automatable: reach
      ? ['yes', 'Automatisable : attaque par le réseau, sans complexité, privilège ni action de l’utilisateur.']
      : ['no', 'Automatisable : non, l’attaque demande un accès, un privilège ou une action de l’utilisateur.'],
    impact: total
      ? ['total', 'Impact technique total : confidentialité et intégrité entièrement compromises.']
      : ['partial', 'Impact technique partiel : confidentialité ou intégrité pas entièrement compromises.'],
  };
}

function mission(criticality: string | null, exposed: boolean | undefined): [MissionWellbeing, string] {
  const where =
    exposed === undefined ? 'exposition à Internet non renseignée' : exposed ? 'exposé à Internet' : 'non exposé';
  switch (criticality) {
    case 'critical':
      return ['high', `Mission : élevée (actif critique, ${where}).`];
    case 'high':
      return exposed
        ? ['high', `Mission : élevée (actif de criticité élevée, ${where}).`]
        : ['medium', `Mission : moyenne (actif de criticité élevée, ${where}).`];
    case 'medium':
      return exposed
        ? ['medium', `Mission : moyenne (actif de criticité moyenne, ${where}).`]
        : ['low', `Mission : faible (actif de criticité moyenne, ${where}).`];
    case 'low':
      return ['low', `Mission : faible (actif de criticité faible, ${where}).`];
    default:
      return ['medium', 'Mission : supposée moyenne, la vulnérabilité n’est rattachée à aucun actif.'];
  }
}

/** The SSVC decision of a finding and why, point by point. */
export function assessSsvc(f: SsvcFacts): SsvcAssessment {
  const [e, eWhy] = exploitation(f, f.epssThreshold ?? DEFAULT_EPSS_THRESHOLD);
  const { automatable, impact } = fromVector(f.cvssVector);
  const [mw, mwWhy] = mission(f.criticality, f.internetExposed);
  const points: SsvcPoints = {
    exploitation: e,
    automatable: automatable[0],
    technicalImpact: impact[0],
    missionWellbeing: mw,
  };
  return { decision: ssvcDecision(points), points, reasons: [eWhy, automatable[1], impact[1], mwWhy] };
}
