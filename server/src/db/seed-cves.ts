import path from 'node:path';
import { importSources, SEED_DATA_DIR } from '../importers/index.ts';
import type { Db } from './client.ts';

/**
 * The CVEs the demo findings point at (chosen from the shipped files: KEV entries and others of every severity,
 * from the CVE 5 sample and the NVD API page); 'demo' mode loads at least these.
 */
export const DEMO_CVE_IDS: readonly string[] = [
  'CVE-2018-13374',
  'CVE-2020-14750',
  'CVE-2020-14883',
  'CVE-2021-31956',
  'CVE-2022-21587',
  'CVE-2022-38028',
  'CVE-2022-40684',
  'CVE-2023-20269',
  'CVE-2023-33107',
  'CVE-2024-1212',
  'CVE-2024-20767',
  'CVE-2024-21338',
  'CVE-2024-23692',
  'CVE-2024-30040',
  'CVE-2024-3272',
  'CVE-2024-3273',
  'CVE-2024-36401',
  'CVE-2024-38094',
  'CVE-2024-38178',
  'CVE-2024-38189',
  'CVE-2024-38217',
  'CVE-2024-4358',
  'CVE-2024-8190',
  'CVE-2024-9537',
  'CVE-2023-6825',
  'CVE-2024-1512',
  'CVE-2024-34555',
  'CVE-2024-49242',
  'CVE-2022-35804',
  'CVE-2023-39936',
  'CVE-2023-41877',
  'CVE-2023-47068',
  'CVE-2024-0099',
  'CVE-2024-33490',
  'CVE-2024-33646',
  'CVE-2024-37090',
  'CVE-2022-21460',
  'CVE-2023-39208',
  'CVE-2023-48789',
  'CVE-2023-6799',
  'CVE-2023-6917',
  'CVE-2024-1096',
  'CVE-2024-20390',
  'CVE-2024-32819',
  'CVE-2024-37502',
  'CVE-2024-43792',
  'CVE-2023-47769',
  'CVE-2024-30135',
  'CVE-2024-30252',
  'CVE-2024-4727',
  'CVE-2023-27314',
  'CVE-2023-45109',
  'CVE-2023-45391',
  'CVE-2023-3706',
  'CVE-2023-3707',
  'CVE-2023-3746',
];

/** The shipped files the demo records come from (the 2003 NVD feed holds none of them). */
const DEMO_FILES = [
  'cwe/cwe_ids_names_v4.20.csv',
  'nvd/nvd-api-2.0-page-2023.json',
  'cve5/vulnrichment_sample.jsonl',
  'kev/known_exploited_vulnerabilities.json',
  'epss/epss_sample.csv',
];

/**
 * Loads the CVE reference data shipped in seed-data/: 'demo' is the CWE names plus the DEMO_CVE_IDS records with
 * their KEV and EPSS enrichment (fast enough for every test database), 'full' is every shipped record.
 * `db` may be a transaction (seedDemoData runs inside one).
 */
export async function seedCveReference(db: Db, opts: { mode: 'demo' | 'full' }): Promise<{ cves: number }> {
  const counts =
    opts.mode === 'demo'
      ? await importSources(
          db,
          DEMO_FILES.map((f) => path.join(SEED_DATA_DIR, f)),
          { only: new Set(DEMO_CVE_IDS) },
        )
      : await importSources(db, [SEED_DATA_DIR]);
  return { cves: counts.new_cves };
}
