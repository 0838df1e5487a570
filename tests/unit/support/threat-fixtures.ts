import type { Threat } from '../../../src/features/threats/threats-api.ts';

/** A threat as /api/threats/ answers it: active, high, on no asset unless `extra` says otherwise. */
export function threat(id: number, extra: Partial<Threat> = {}): Threat {
  return {
    id,
    title: `Menace ${id}`,
    description: '',
    threat_type: 'ransomware',
    severity: 'high',
    status: 'ACTIVE',
    is_mitigated: false,
    mitigated_at: null,
    source: '',
    cve_id: null,
    asset_id: null,
    asset: null,
    created_at: '2025-06-02T08:00:00Z',
    updated_at: '2025-06-02T08:00:00Z',
    ...extra,
  };
}
