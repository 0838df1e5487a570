import type { Db } from './client.ts';

/**
 * Loads the CVE reference data shipped in seed-data/: 'demo' is the small set the demo findings point at
 * (fast enough for every test database), 'full' is every shipped record.
 */
// Not built yet (issue 6, importers): loads nothing.
export async function seedCveReference(_db: Db, _opts: { mode: 'demo' | 'full' }): Promise<{ cves: number }> {
  return { cves: 0 };
}
