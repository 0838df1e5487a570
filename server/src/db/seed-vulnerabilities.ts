import type { Db } from './client.ts';

/** Demo assets, findings, scans and threats for each seeded tenant, pointing at real CVEs of the store. */
// Not built yet (issue 6, vulnerabilities): seeds nothing.
export async function seedVulnerabilityDemo(_db: Db, _tenants: { acme: string; horizon: string }): Promise<void> {}
