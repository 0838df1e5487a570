import {
  arr,
  buildRecord,
  cveId,
  cweIds,
  obj,
  references,
  scored,
  sourced,
  str,
  timestamp,
  RecordError,
  type SourcedScore,
} from './record.ts';
import type { CveRecord } from './types.ts';

/** CISA's ADP (Vulnrichment) as NVD names a Secondary metric's source. */
const CISA_ADP_SOURCE = '134c704f-9b21-4f2e-91b3-4a467353bcc0';

/**
 * The metric NVD itself scored (type Primary), else the first one listed, with who scored it: NVD for a Primary
 * metric; a Secondary one is the CNA's, or CISA ADP's when NVD names it so.
 */
function pickMetric(list: unknown): SourcedScore | null {
  const metrics = arr(list).map(obj);
  const ordered = [...metrics.filter((m) => m?.type === 'Primary'), ...metrics.filter((m) => m?.type !== 'Primary')];
  for (const m of ordered) {
    const data = obj(m?.cvssData);
    const source = m?.type === 'Primary' ? 'nvd' : str(m?.source) === CISA_ADP_SOURCE ? 'adp' : 'cna';
    const s = sourced(scored(data?.vectorString, data?.baseScore), source);
    if (s) return s;
  }
  return null;
}

function english(list: unknown): string {
  const items = arr(list).map(obj);
  const en = items.find((d) => str(d?.lang)?.toLowerCase().startsWith('en')) ?? items[0];
  return str(en?.value) ?? '';
}

/** One item of an NVD CVE API 2.0 answer or yearly feed ({cve: {…}}) as a CVE record. */
export function nvdRecord(item: unknown): CveRecord {
  const cve = obj(obj(item)?.cve);
  if (!cve) throw new RecordError('objet « cve » absent');
  const metrics = obj(cve.metrics) ?? {};
  const weaknesses = arr(cve.weaknesses).flatMap((w) => arr(obj(w)?.description).map((d) => str(obj(d)?.value) ?? ''));
  return buildRecord(
    {
      cve_id: cveId(cve.id),
      title: undefined,
      description: english(cve.descriptions),
      status: str(cve.vulnStatus) ?? null,
      published_at: timestamp(cve.published, 'published'),
      modified_at: timestamp(cve.lastModified, 'lastModified'),
      cweIds: cweIds(weaknesses),
      references: references(arr(cve.references)),
      source: 'nvd',
    },
    {
      v4: pickMetric(metrics.cvssMetricV40),
      v3: pickMetric(metrics.cvssMetricV31) ?? pickMetric(metrics.cvssMetricV30),
      v2: pickMetric(metrics.cvssMetricV2),
    },
  );
}
