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

/**
 * Loads the CVE reference data shipped in seed-data/: 'demo' is the small set the demo findings point at
 * (fast enough for every test database), 'full' is every shipped record.
 */
// Not built yet (issue 6, importers): loads nothing.
export async function seedCveReference(_db: Db, _opts: { mode: 'demo' | 'full' }): Promise<{ cves: number }> {
  return { cves: 0 };
}
