import { createRequire } from 'node:module';
import type * as CvssCalculator from 'ae-cvss-calculator';
import type { Severity } from '../db/schema.ts';

// The package is a webpack UMD bundle: Node's ESM loader cannot see its named exports, so load it through require.
const calculator = createRequire(import.meta.url)('ae-cvss-calculator') as typeof CvssCalculator;

export type CvssVersion = '2.0' | '3.0' | '3.1' | '4.0';

export interface CvssScore {
  version: CvssVersion;
  /** Base score computed from the vector by ae-cvss-calculator. */
  score: number;
  /** The vector as given (normalised: surrounding spaces and parentheses removed). */
  vector: string;
  severity: Severity;
}

export interface CvssMetric {
  key: string;
  name: string;
  value: string;
  value_label: string;
}

/** The version a vector announces: 'CVSS:3.1/…', 'CVSS:4.0/…', or a bare v2 vector 'AV:N/AC:L/Au:N/…'. */
export function cvssVersionOf(vector: string): CvssVersion | undefined {
  const prefix = /^CVSS:(\d\.\d)\//.exec(vector)?.[1];
  if (prefix === '3.0' || prefix === '3.1' || prefix === '4.0') return prefix;
  if (prefix === undefined && /^AV:[LAN]\/AC:[HML]\/Au:[MSN]\//.test(vector)) return '2.0';
  return undefined;
}

/** FIRST's qualitative scale (v3.x and v4); 0.0 ("None") is reported as 'info'. */
export function severityFromScore(score: number, version: CvssVersion): Severity {
  if (version === '2.0') return score >= 7 ? 'high' : score >= 4 ? 'medium' : 'low';
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score > 0) return 'low';
  return 'info';
}

// Vectors repeat a lot across a feed (a few thousand distinct ones for 300k CVEs): compute each once.
const cache = new Map<string, CvssScore | null>();
const CACHE_LIMIT = 20_000;

/**
 * Parses a vector and computes its base score with ae-cvss-calculator. Returns null for a vector the library
 * does not accept or whose base metrics are incomplete (the caller keeps the feed's own score then).
 */
export function scoreVector(rawVector: string): CvssScore | null {
  const vector = rawVector.trim().replace(/^\((.*)\)$/, '$1');
  const cached = cache.get(vector);
  if (cached !== undefined) return cached;
  const result = computeScore(vector);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(vector, result);
  return result;
}

function computeScore(vector: string): CvssScore | null {
  const version = cvssVersionOf(vector);
  if (!version) return null;
  try {
    const cvss =
      version === '2.0'
        ? new calculator.Cvss2(vector)
        : version === '3.0'
          ? new calculator.Cvss3P0(vector)
          : version === '3.1'
            ? new calculator.Cvss3P1(vector)
            : new calculator.Cvss4P0(vector);
    if (!cvss.isBaseFullyDefined()) return null;
    const base = cvss.calculateScores().base;
    if (base === undefined || !Number.isFinite(base)) return null;
    return { version, score: base, vector, severity: severityFromScore(base, version) };
  } catch {
    return null;
  }
}

/**
 * The score to store for a vector the feed scored as `feedScore`: the library's base score when it can compute
 * one, else the feed's score with its own severity (an unparsable vector is kept as given, never dropped).
 */
export function resolveCvss(vector: string, feedScore: number | undefined): CvssScore | null {
  const computed = scoreVector(vector);
  if (computed) return computed;
  const version = cvssVersionOf(vector);
  if (!version || feedScore === undefined || !Number.isFinite(feedScore) || feedScore < 0 || feedScore > 10) {
    return null;
  }
  return { version, score: feedScore, vector: vector.trim(), severity: severityFromScore(feedScore, version) };
}

type Labels = Record<string, { name: string; values: Record<string, string> }>;

const IMPACT3 = { H: 'Élevé', L: 'Faible', N: 'Aucun' };
const IMPACT4 = { H: 'Élevé', L: 'Faible', N: 'Aucun' };
const REQUIREMENT = { X: 'Non défini', H: 'Élevée', M: 'Moyenne', L: 'Faible' };

/** French names of the CVSS v3.x metrics (base, temporal, environmental). */
const V3: Labels = {
  AV: { name: "Vecteur d'attaque", values: { N: 'Réseau', A: 'Réseau adjacent', L: 'Local', P: 'Physique' } },
  AC: { name: "Complexité d'attaque", values: { L: 'Faible', H: 'Élevée' } },
  PR: { name: 'Privilèges requis', values: { N: 'Aucun', L: 'Faibles', H: 'Élevés' } },
  UI: { name: 'Interaction utilisateur', values: { N: 'Aucune', R: 'Requise' } },
  S: { name: 'Portée', values: { U: 'Inchangée', C: 'Modifiée' } },
  C: { name: 'Impact sur la confidentialité', values: IMPACT3 },
  I: { name: "Impact sur l'intégrité", values: IMPACT3 },
  A: { name: 'Impact sur la disponibilité', values: IMPACT3 },
  E: {
    name: "Maturité du code d'exploitation",
    values: { X: 'Non définie', U: 'Non prouvée', P: 'Preuve de concept', F: 'Fonctionnel', H: 'Élevée' },
  },
  RL: {
    name: 'Niveau de correction',
    values: {
      X: 'Non défini',
      O: 'Correctif officiel',
      T: 'Correctif temporaire',
      W: 'Contournement',
      U: 'Indisponible',
    },
  },
  RC: {
    name: 'Confiance dans le rapport',
    values: { X: 'Non définie', U: 'Inconnue', R: 'Raisonnable', C: 'Confirmée' },
  },
  CR: { name: 'Exigence de confidentialité', values: REQUIREMENT },
  IR: { name: "Exigence d'intégrité", values: REQUIREMENT },
  AR: { name: 'Exigence de disponibilité', values: REQUIREMENT },
};

/** French names of the CVSS v4.0 metrics (base, threat, environmental requirements). */
const V4: Labels = {
  AV: { name: "Vecteur d'attaque", values: { N: 'Réseau', A: 'Adjacent', L: 'Local', P: 'Physique' } },
  AC: { name: "Complexité d'attaque", values: { L: 'Faible', H: 'Élevée' } },
  AT: { name: "Conditions préalables à l'attaque", values: { N: 'Aucune', P: 'Présentes' } },
  PR: { name: 'Privilèges requis', values: { N: 'Aucun', L: 'Faibles', H: 'Élevés' } },
  UI: { name: 'Interaction utilisateur', values: { N: 'Aucune', P: 'Passive', A: 'Active' } },
  VC: { name: 'Confidentialité du système vulnérable', values: IMPACT4 },
  VI: { name: 'Intégrité du système vulnérable', values: IMPACT4 },
  VA: { name: 'Disponibilité du système vulnérable', values: IMPACT4 },
  SC: { name: 'Confidentialité des systèmes en aval', values: IMPACT4 },
  SI: { name: 'Intégrité des systèmes en aval', values: IMPACT4 },
  SA: { name: 'Disponibilité des systèmes en aval', values: IMPACT4 },
  E: {
    name: "Maturité de l'exploitation",
    values: { X: 'Non définie', A: 'Attaquée', P: 'Preuve de concept', U: 'Non signalée' },
  },
  CR: { name: 'Exigence de confidentialité', values: REQUIREMENT },
  IR: { name: "Exigence d'intégrité", values: REQUIREMENT },
  AR: { name: 'Exigence de disponibilité', values: REQUIREMENT },
  AU: { name: 'Automatisable', values: { X: 'Non défini', N: 'Non', Y: 'Oui' } },
  R: {
    name: 'Rétablissement',
    values: { X: 'Non défini', A: 'Automatique', U: 'Par l’utilisateur', I: 'Irrécupérable' },
  },
  V: { name: 'Densité de valeur', values: { X: 'Non définie', D: 'Diffuse', C: 'Concentrée' } },
  RE: {
    name: 'Effort de réponse à la vulnérabilité',
    values: { X: 'Non défini', L: 'Faible', M: 'Modéré', H: 'Élevé' },
  },
  U: {
    name: 'Urgence du fournisseur',
    values: { X: 'Non définie', Clear: 'Aucune', Green: 'Verte', Amber: 'Orange', Red: 'Rouge' },
  },
};

/**
 * Each metric of a v3.x or v4.0 vector, explained in French, in the vector's order. Metrics left 'X' (not
 * defined) are omitted; a metric this table does not know keeps its abbreviation as name and value.
 */
export function explainVector(vector: string): CvssMetric[] {
  const version = cvssVersionOf(vector);
  if (version !== '3.0' && version !== '3.1' && version !== '4.0') return [];
  const labels = version === '4.0' ? V4 : V3;
  const metrics: CvssMetric[] = [];
  for (const part of vector.split('/').slice(1)) {
    const [key, value] = part.split(':');
    if (!key || !value || value === 'X') continue;
    // Own keys only: a vector's `constructor` must not find Object's.
    const known = Object.hasOwn(labels, key) ? labels[key] : undefined;
    const label = known && Object.hasOwn(known.values, value) ? known.values[value] : undefined;
    metrics.push({ key, name: known?.name ?? key, value, value_label: label ?? value });
  }
  return metrics;
}
