import type { SsvcDecision } from '../../../../contract/ssvc.ts';
import type { FindingState } from '../../../../contract/finding-states.ts';
import type { CvssSource, FindingSeverity, SeveritySource } from '../../../../contract/severity.ts';
export interface CvssMetric {
  key: string;
  name: string;
  value: string;
  value_label: string;
}

export interface CvssBlock {
  score: number;
  vector: string;
  severity: string;
  metrics?: CvssMetric[];
}

export interface Cve {
  cve_id: string;
  title: string;
  description: string;
  status?: string;
  published_at: string | null;
  modified_at: string | null;
  /** A severity, 'unrated' without any CVSS (FindingSeverity); kept a string for an older backend's words. */
  severity: string | null;
  /** Whose CVSS the severity comes from; absent from an older backend. */
  cvss_source?: CvssSource | null;
  cvss_v31: CvssBlock | null;
  cvss_v4: CvssBlock | null;
  cvss_v2: Omit<CvssBlock, 'metrics'> | null;
  cwes: { id: string; name: string }[];
  references: { url: string; source?: string; tags?: string[] }[];
  kev: {
    date_added: string;
    due_date: string | null;
    required_action: string | null;
    vendor?: string;
    product?: string;
    name?: string;
    known_ransomware?: string | boolean | null;
  } | null;
  epss: { score: number; percentile: number; date?: string } | null;
  affected_assets?: number;
}

export interface CveHit {
  cve_id: string;
  title: string;
  description: string;
  severity: string | null;
  cvss_score: number | null;
  published_at: string | null;
  kev: boolean;
  epss_score: number | null;
  rank?: number;
}

export interface Vulnerability {
  id: number | string;
  title: string;
  description?: string | null;
  cve_id: string | null;
  /** One of FINDING_SEVERITIES ('unrated': nothing rated it); kept a string for an older backend's words. */
  severity: string;
  /** Who gave the severity shown (absent from an older backend or sample). */
  severity_source?: SeveritySource;
  /** The analyst's reason, when an analyst overrode the severity. */
  severity_reason?: string | null;
  /** What the scanner or the CVE store says, kept while an analyst's override stands (null: no override). */
  rated_severity?: FindingSeverity | null;
  rated_source?: SeveritySource | null;
  cvss_score: number | null;
  cvss_vector?: string | null;
  kev: boolean;
  epss_score: number | null;
  cwe_ids?: string[];
  asset: { id: number | string; name: string } | null;
  asset_id?: number | string | null;
  scan_id?: number | string | null;
  port?: number | null;
  protocol?: string | null;
  service?: string | null;
  package_name?: string | null;
  installed_version?: string | null;
  fixed_version?: string | null;
  solution?: string | null;
  source?: string | null;
  is_resolved: boolean;
  resolved_at?: string | null;
  resolved_by?: string | number | null;
  /** The lifecycle (issue 21); absent from a backend or sample that only knows is_resolved. */
  state?: FindingState;
  state_changed_at?: string | null;
  state_reason?: string | null;
  accepted_by?: number | null;
  accepted_until?: string | null;
  assignee_id?: number | null;
  due_date?: string | null;
  /** The SSVC decision kept on the finding (issue 21); null once resolved, absent from an older answer or sample. */
  ssvc_decision?: SsvcDecision | null;
  first_seen?: string | null;
  last_seen?: string | null;
  created_at: string;
  updated_at?: string;
  cve?: Cve | null;
  /** CISA's SSVC decision (issue 21), on a finding read alone from this server. */
  ssvc?: {
    decision: SsvcDecision;
    exploitation: string;
    automatable: string;
    technical_impact: string;
    mission_wellbeing: string;
    reasons: string[];
  };
}

export type { Paged } from '../../../../contract/paged.ts';

/** One line of a finding's history: a state move, an assignment, a due date, a comment or a severity change. */
export interface FindingEvent {
  id: number;
  /** 'severity': an analyst's override or its removal (from/to are severities, the comment the reason). */
  kind: 'state' | 'assignee' | 'due_date' | 'comment' | 'severity';
  user_id: number | null;
  username: string | null;
  from_value: string | null;
  to_value: string | null;
  comment: string;
  created_at: string;
}

/** A person a finding may be assigned to. */
export interface Assignee {
  id: number;
  username: string;
  name: string;
}

/** A project the caller may link findings to (their access is edit or manage). */
export interface ProjectOption {
  id: number;
  name: string;
}

/** A risk of a project the caller reads, and the one finding it names (docs/api-projects.md `Risk`). */
export interface RiskOption {
  id: number;
  project: number;
  title: string;
  vulnerability: number | null;
}

/** Open findings per severity, « Non évaluée » included. */
export type SeverityCounts = Record<FindingSeverity, number>;

/**
 * spec §3 summary, as `fetchSummary` gives it. The sample (spec §8) lacks kev/open/resolved counts and names assets
 * differently: all optional here. `severity_distribution` always has its six keys (an older answer, cached or
 * sample, may lack `unrated`: 0).
 */
export interface VulnerabilitySummary {
  total_vulnerabilities?: number;
  severity_distribution: SeverityCounts;
  recently_added: {
    id: number | string;
    cve_id: string | null;
    title: string;
    severity: string;
    asset: string | { id: number | string; name: string } | null;
    created_at: string;
  }[];
  top_affected_assets: { id?: number | string; name?: string; asset?: string; count: number; critical?: number }[];
  top_cwe_categories: { cwe_id: string; name?: string; count: number }[];
  vulnerability_trends: { date: string; count: number }[];
  kev_count?: number;
  /** Open findings whose SSVC decision is Act (« À traiter maintenant »). */
  ssvc_act_count?: number;
  open_count?: number;
  resolved_count?: number;
  generated_at?: string;
}

export interface AssetOption {
  id: number | string;
  name: string;
}
