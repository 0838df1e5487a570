import { arr, calendarDate, cveId, cweIds, firstSentence, obj, str, RecordError } from './record.ts';
import type { KevEntry } from './types.ts';

const text = (v: unknown) => str(v)?.trim() || null;

/** One entry of CISA's known_exploited_vulnerabilities.json. */
export function kevEntry(value: unknown): KevEntry {
  const o = obj(value);
  if (!o) throw new RecordError('entrée KEV illisible');
  const description = text(o.shortDescription) ?? '';
  const name = text(o.vulnerabilityName);
  return {
    cve_id: cveId(o.cveID),
    title: name ?? firstSentence(description),
    description,
    cwe_ids: cweIds(arr(o.cwes).filter((c): c is string => typeof c === 'string')),
    date_added: calendarDate(o.dateAdded, 'dateAdded'),
    due_date: calendarDate(o.dueDate, 'dueDate'),
    required_action: text(o.requiredAction),
    vendor: text(o.vendorProject),
    product: text(o.product),
    name,
    known_ransomware: text(o.knownRansomwareCampaignUse),
  };
}
