import { FINDING_SEVERITIES, type FindingSeverity } from '../../../contract/severity.ts';
import { SSVC_DECISIONS, type SsvcDecision } from '../../../contract/ssvc.ts';
import type { ListQuery } from './api/vulnerabilities.ts';

/** The list's filters and ordering, as kept in the URL query (same names as the API's). */
export interface ListFilters {
  /** The five scored severities and 'unrated' (« Non évaluée »). */
  severity: FindingSeverity[];
  is_resolved: '' | 'true' | 'false';
  kev: '' | 'true' | 'false';
  asset: string;
  cve: string;
  /** A scan's findings (its page links here). */
  scan: string;
  text: string;
  /** SSVC decisions (issue 21): only open findings have one. */
  ssvc: SsvcDecision[];
  ordering: string;
}

export const ORDERINGS: { value: string; label: string }[] = [
  { value: '-created_at', label: 'Plus récentes d’abord' },
  { value: 'created_at', label: 'Plus anciennes d’abord' },
  { value: '-severity', label: 'Gravité décroissante' },
  { value: 'severity', label: 'Gravité croissante' },
  { value: '-cvss_score', label: 'CVSS décroissant' },
  { value: 'cvss_score', label: 'CVSS croissant' },
  { value: 'cve_id', label: 'CVE (A → Z)' },
  { value: '-cve_id', label: 'CVE (Z → A)' },
  { value: 'title', label: 'Titre (A → Z)' },
  { value: '-title', label: 'Titre (Z → A)' },
  { value: '-ssvc_decision', label: 'Priorité SSVC (Act d’abord)' },
  { value: 'ssvc_decision', label: 'Priorité SSVC (Track d’abord)' },
  { value: '-last_seen', label: 'Vues récemment' },
  { value: '-updated_at', label: 'Modifiées récemment' },
];
export const DEFAULT_ORDERING = '-created_at';
const ORDERING_VALUES = new Set(ORDERINGS.map((o) => o.value).concat(['last_seen', 'updated_at']));

function triState(v: string | null): '' | 'true' | 'false' {
  return v === 'true' || v === 'false' ? v : '';
}

/** `chosen` in the order of `all`, without duplicates: equal filters give equal URLs, whatever the clicks' order. */
const inOrder = <T extends string>(all: readonly T[], chosen: readonly string[]): T[] =>
  all.filter((x) => chosen.includes(x));

export function parseFilters(search: string): ListFilters {
  const p = new URLSearchParams(search);
  const severity = (p.get('severity') ?? '').split(',').map((s) => s.trim().toLowerCase());
  const ordering = p.get('ordering') ?? '';
  const ssvc = (p.get('ssvc') ?? '').split(',').map((s) => s.trim().toLowerCase());
  return {
    severity: inOrder(FINDING_SEVERITIES, severity),
    is_resolved: triState(p.get('is_resolved')),
    kev: triState(p.get('kev')),
    asset: p.get('asset') ?? '',
    cve: p.get('cve') ?? '',
    scan: /^\d+$/.test(p.get('scan') ?? '') ? p.get('scan')! : '',
    text: p.get('text') ?? '',
    ssvc: inOrder(SSVC_DECISIONS, ssvc),
    ordering: ORDERING_VALUES.has(ordering) ? ordering : DEFAULT_ORDERING,
  };
}

/** The URL query (without '?'): defaults left out. */
export function filtersToSearch(f: ListFilters): string {
  const p = new URLSearchParams();
  if (f.severity.length) p.set('severity', inOrder(FINDING_SEVERITIES, f.severity).join(','));
  if (f.is_resolved) p.set('is_resolved', f.is_resolved);
  if (f.kev) p.set('kev', f.kev);
  if (f.asset) p.set('asset', f.asset);
  if (f.cve) p.set('cve', f.cve);
  if (f.scan) p.set('scan', f.scan);
  if (f.text.trim()) p.set('text', f.text.trim());
  if (f.ssvc.length) p.set('ssvc', inOrder(SSVC_DECISIONS, f.ssvc).join(','));
  if (f.ordering !== DEFAULT_ORDERING) p.set('ordering', f.ordering);
  return p.toString();
}

/** The API query for the list and the export. */
export function filtersToApi(f: ListFilters): ListQuery {
  const q: ListQuery = { ordering: f.ordering };
  if (f.severity.length) q.severity = inOrder(FINDING_SEVERITIES, f.severity).join(',');
  if (f.is_resolved) q.is_resolved = f.is_resolved;
  if (f.kev) q.kev = f.kev;
  if (f.asset) q.asset = f.asset;
  if (f.cve) q.cve = f.cve;
  if (f.scan) q.scan = f.scan;
  if (f.text.trim()) q.text = f.text.trim();
  if (f.ssvc.length) q.ssvc = inOrder(SSVC_DECISIONS, f.ssvc).join(',');
  return q;
}

export function hasFilters(f: ListFilters): boolean {
  return !!(
    f.severity.length ||
    f.is_resolved ||
    f.kev ||
    f.asset ||
    f.cve ||
    f.scan ||
    f.text.trim() ||
    f.ssvc.length
  );
}
