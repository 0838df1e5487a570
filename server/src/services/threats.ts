import type { TenantDb } from '../db/tenant-scope.ts';
import { mitigation } from '../domain/threat-mitigation.ts';
import { ThreatsRepository, type ThreatRow } from '../repositories/threats.ts';
import { ASSET_UNKNOWN, invalid } from '../schemas/fields.ts';
import type { ThreatWrite } from '../schemas/threats.ts';

const repo = new ThreatsRepository();

/** The threats' counts by severity and by status, and the `recent` latest ones (spec §3 threat summary). */
export async function threatSummary(tx: TenantDb, recent: number) {
  return {
    bySeverity: await repo.countsBy(tx, 'severity'),
    byStatus: await repo.countsBy(tx, 'status'),
    recent: await repo.recent(tx, recent),
  };
}

/**
 * A new threat (POST /api/threats/, or linked to a project as it is made): its asset must be one of the tenant's,
 * and its status and mitigation agree (domain/threat-mitigation.ts).
 */
export async function createThreat(
  tx: TenantDb,
  tenant: string,
  input: ThreatWrite,
  userId: number,
): Promise<ThreatRow> {
  const { assetId } = input.values;
  if (assetId !== null && assetId !== undefined && !(await repo.assetExists(tx, assetId))) {
    throw invalid('asset_id', ASSET_UNKNOWN);
  }
  const values = { ...input.values, ...mitigation(input.asked, undefined, userId, true) };
  return repo.create(tx, tenant, { ...values, title: values.title! });
}
