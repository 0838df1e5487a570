import type { CvssScore } from '../lib/cvss.ts';
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
  type Json,
} from './record.ts';
import type { CveRecord } from './types.ts';

const METRIC_KEYS = { v4: ['cvssV4_0'], v3: ['cvssV3_1', 'cvssV3_0'], v2: ['cvssV2_0'] } as const;

/** The first metric of this version in the container's metrics list. */
function metricOf(container: Json | undefined, keys: readonly string[]): CvssScore | null {
  for (const key of keys) {
    for (const m of arr(container?.metrics)) {
      const data = obj(obj(m)?.[key]);
      const s = scored(data?.vectorString, data?.baseScore);
      if (s) return s;
    }
  }
  return null;
}

function problemTypeCwes(container: Json | undefined): string[] {
  const texts: string[] = [];
  for (const p of arr(container?.problemTypes)) {
    for (const d of arr(obj(p)?.descriptions)) {
      const o = obj(d);
      const id = str(o?.cweId);
      if (id) texts.push(id);
      else if (str(o?.type)?.toUpperCase() === 'CWE') texts.push(str(o?.description) ?? '');
    }
  }
  return cweIds(texts);
}

/** The container's references, each tagged with the container's provider (CNA or ADP short name). */
function withSource(container: Json | undefined): unknown[] {
  const source = str(obj(container?.providerMetadata)?.shortName);
  return arr(container?.references).map((r) => (source && obj(r) ? { source, ...obj(r) } : r));
}

function english(list: unknown): string {
  const items = arr(list).map(obj);
  const en = items.find((d) => str(d?.lang)?.toLowerCase().startsWith('en')) ?? items[0];
  return str(en?.value) ?? '';
}

/**
 * A CVE JSON 5.x record as a CVE record: text, CWE and CVSS from the CNA container, each falling back to the
 * ADP containers (CISA Vulnrichment scores many records the CNA left unscored).
 */
export function cve5Record(value: unknown): CveRecord {
  const record = obj(value);
  const meta = obj(record?.cveMetadata);
  if (!record || !meta) throw new RecordError('objet « cveMetadata » absent');
  const containers = obj(record.containers);
  const cna = obj(containers?.cna);
  const adps = arr(containers?.adp)
    .map(obj)
    .filter((a): a is Json => a !== undefined);
  // Every ADP that scores is CISA's today (Vulnrichment); the CVE Program's container carries references only.
  const pick = (keys: readonly string[]) => {
    const fromCna = sourced(metricOf(cna, keys), 'cna');
    if (fromCna) return fromCna;
    for (const adp of adps) {
      const s = sourced(metricOf(adp, keys), 'adp');
      if (s) return s;
    }
    return null;
  };
  let cwes = problemTypeCwes(cna);
  if (cwes.length === 0) cwes = cweIds(adps.flatMap((a) => problemTypeCwes(a)));
  const state = str(meta.state) ?? null;
  const description = english(cna?.descriptions) || english(cna?.rejectedReasons);
  return buildRecord(
    {
      cve_id: cveId(meta.cveId),
      title: str(cna?.title),
      description,
      status: state,
      published_at: timestamp(meta.datePublished, 'datePublished'),
      modified_at: timestamp(meta.dateUpdated, 'dateUpdated'),
      cweIds: cwes,
      references: references([cna, ...adps].flatMap((c) => withSource(c))),
      source: 'cve5',
    },
    { v4: pick(METRIC_KEYS.v4), v3: pick(METRIC_KEYS.v3), v2: pick(METRIC_KEYS.v2) },
  );
}
