import type { TenantDb } from '../db/tenant-scope.ts';
import { cweNames, findCve, openFindingsOn } from '../repositories/cves.ts';

/** A CVE of the store, its CWE names and the count of the tenant's open findings on it; undefined when unknown. */
export async function cveWithContext(tx: TenantDb, cveId: string) {
  const row = await findCve(tx, cveId);
  if (!row) return undefined;
  return { row, cwes: await cweNames(tx, row.cweIds), affected: await openFindingsOn(tx, cveId) };
}
