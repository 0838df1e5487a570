import type { CveReference } from '../db/schema.ts';
import type { CvssSource, FindingSeverity } from '../../../contract/severity.ts';
import { resolveCvss, type CvssScore } from '../lib/cvss.ts';
import type { CveRecord } from './types.ts';

/** A record that cannot be imported (no id, unreadable date…): counted as an error, the import goes on. */
export class RecordError extends Error {}

export type Json = Record<string, unknown>;

export function obj(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

const CVE_ID = /^CVE-\d{4}-\d{4,}$/;

/** The canonical id (upper case), or a RecordError. */
export function cveId(v: unknown): string {
  const id = str(v)?.trim().toUpperCase();
  if (!id || !CVE_ID.test(id)) throw new RecordError(`identifiant CVE invalide ou absent (${String(v).slice(0, 40)})`);
  return id;
}

/** ISO timestamp in UTC; NVD writes local-less timestamps ('2023-10-12T19:15:11.747') that are UTC. */
export function timestamp(v: unknown, field: string): string | null {
  const s = str(v)?.trim();
  if (!s) return null;
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(s) || !s.includes('T') ? s : `${s}Z`;
  const d = new Date(withZone);
  if (Number.isNaN(d.getTime())) throw new RecordError(`date ${field} illisible (${s.slice(0, 40)})`);
  return d.toISOString();
}

/** A calendar date 'YYYY-MM-DD' (KEV, EPSS), or null. */
export function calendarDate(v: unknown, field: string): string | null {
  const s = str(v)?.trim();
  if (!s) return null;
  const m = /^(\d{4}-\d{2}-\d{2})/.exec(s);
  if (!m || Number.isNaN(new Date(`${m[1]}T00:00:00Z`).getTime())) {
    throw new RecordError(`date ${field} illisible (${s.slice(0, 40)})`);
  }
  return m[1]!;
}

/** CWE ids ('CWE-79'), deduplicated; NVD's placeholders (NVD-CWE-noinfo, NVD-CWE-Other) are dropped. */
export function cweIds(values: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const v of values) {
    for (const m of v.matchAll(/\bCWE-(\d+)\b/gi)) out.add(`CWE-${m[1]}`);
  }
  return [...out];
}

const SENTENCE_END = /[.!?](?=\s|$)/;

/** The first sentence of a description (at most 200 characters), as the title of a record without one. */
export function firstSentence(description: string): string {
  const text = description.replace(/\s+/g, ' ').trim();
  const m = SENTENCE_END.exec(text);
  let sentence = m && m.index >= 10 ? text.slice(0, m.index + 1) : text;
  if (sentence.length > 200) {
    const cut = sentence.lastIndexOf(' ', 197);
    sentence = `${sentence.slice(0, cut > 100 ? cut : 197)}…`;
  }
  return sentence;
}

export function references(list: unknown[], defaultSource?: string): CveReference[] {
  const seen = new Set<string>();
  const out: CveReference[] = [];
  for (const r of list) {
    const o = obj(r);
    const url = str(o?.url)?.trim();
    if (!o || !url || seen.has(url)) continue;
    seen.add(url);
    const tags = arr(o.tags).filter((t): t is string => typeof t === 'string');
    const source = str(o.source) ?? defaultSource;
    out.push({ url, ...(source ? { source } : {}), ...(tags.length ? { tags } : {}) });
  }
  return out;
}

/** A score as an importer found it, and who gave it (NVD itself, the CNA, CISA's ADP). */
export type SourcedScore = CvssScore & { source: CvssSource };

export interface ScoredMetrics {
  v4: SourcedScore | null;
  v3: SourcedScore | null;
  v2: SourcedScore | null;
}

/** v4, else v3.x, else v2: the store's severity and its source; 'unrated' (no source) when unscored. */
export function bestSeverity(m: ScoredMetrics): { severity: FindingSeverity; source: CvssSource | null } {
  const best = m.v4 ?? m.v3 ?? m.v2;
  return best ? { severity: best.severity, source: best.source } : { severity: 'unrated', source: null };
}

/** The metric with its provider, or null. */
export const sourced = (s: CvssScore | null, source: CvssSource): SourcedScore | null => (s ? { ...s, source } : null);

export function scored(vector: unknown, feedScore: unknown): CvssScore | null {
  const v = str(vector);
  return v ? resolveCvss(v, num(feedScore)) : null;
}

export function buildRecord(
  base: Pick<CveRecord, 'cve_id' | 'status' | 'published_at' | 'modified_at' | 'source' | 'references'> & {
    title: string | undefined;
    description: string;
    cweIds: string[];
  },
  metrics: ScoredMetrics,
): CveRecord {
  const description = base.description.trim();
  const best = bestSeverity(metrics);
  return {
    cve_id: base.cve_id,
    title: (base.title?.trim() || firstSentence(description)).slice(0, 500),
    description,
    status: base.status,
    published_at: base.published_at,
    modified_at: base.modified_at,
    cvss3_score: metrics.v3?.score ?? null,
    cvss3_vector: metrics.v3?.vector ?? null,
    cvss3_severity: metrics.v3?.severity ?? null,
    cvss4_score: metrics.v4?.score ?? null,
    cvss4_vector: metrics.v4?.vector ?? null,
    cvss4_severity: metrics.v4?.severity ?? null,
    cvss2_score: metrics.v2?.score ?? null,
    cvss2_vector: metrics.v2?.vector ?? null,
    severity: best.severity,
    cvss_source: best.source,
    cwe_ids: base.cweIds,
    references: base.references,
    source: base.source,
  };
}
