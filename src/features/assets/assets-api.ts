import { apiRequest, apiRequestWithOrigin, type DataOrigin } from '../../lib/api-client.ts';
import type { AssetFields } from '../../../contract/assets.ts';
import type { Paged } from '../../../contract/paged.ts';

export interface Asset extends AssetFields {
  id: number | string;
  vulnerability_count: number;
  open_vulnerability_count: number;
  created_at: string;
  updated_at: string;
}

export type { Paged } from '../../../contract/paged.ts';

export interface AssetQuery {
  page: number;
  page_size: number;
  asset_type?: string;
  criticality?: string;
  text?: string;
}

/** A create or update body: the asset's own fields. */
export type AssetInput = AssetFields;

const BASE = '/assets/';

export async function listAssets(query: AssetQuery): Promise<{ data: Paged<Asset>; origin: DataOrigin }> {
  const q: Record<string, string | number> = { page: query.page, page_size: query.page_size, ordering: 'name' };
  if (query.asset_type) q.asset_type = query.asset_type;
  if (query.criticality) q.criticality = query.criticality;
  if (query.text) q.text = query.text;
  const { data, origin } = await apiRequestWithOrigin<Partial<Paged<Asset>> | Asset[]>(BASE, {
    query: q,
    allowForbidden: true,
  });
  // spec §3: some lists may be a plain array.
  if (Array.isArray(data)) return { data: { count: data.length, next: null, previous: null, results: data }, origin };
  return {
    data: {
      count: data?.count ?? 0,
      next: data?.next ?? null,
      previous: data?.previous ?? null,
      results: data?.results ?? [],
    },
    origin,
  };
}

export function createAsset(body: AssetInput): Promise<Asset> {
  return apiRequest<Asset>(BASE, { method: 'POST', body: { ...body }, allowForbidden: true });
}

export function updateAsset(id: Asset['id'], body: AssetInput): Promise<Asset> {
  return apiRequest<Asset>(`${BASE}${id}/`, { method: 'PUT', body: { ...body }, allowForbidden: true });
}

export function deleteAsset(id: Asset['id']): Promise<unknown> {
  return apiRequest<unknown>(`${BASE}${id}/`, { method: 'DELETE', allowForbidden: true });
}

/** An asset's page beside the asset (issue 21). */
export interface AssetOverview {
  findings_by_state: Record<string, number>;
  open_by_severity: Record<string, number>;
  scans: {
    id: number;
    name: string;
    status: string;
    scanner: string;
    created_at: string;
    completed_at: string | null;
  }[];
  projects: { id: number; name: string; status: string }[];
  history: {
    id: number;
    vulnerability_id: number;
    title: string;
    kind: string;
    username: string | null;
    from_value: string | null;
    to_value: string | null;
    comment: string;
    created_at: string;
  }[];
}

export function fetchAsset(id: string): Promise<{ data: Asset; origin: DataOrigin }> {
  return apiRequestWithOrigin<Asset>(`${BASE}${encodeURIComponent(id)}/`);
}

export function fetchAssetOverview(id: string): Promise<{ data: AssetOverview; origin: DataOrigin }> {
  return apiRequestWithOrigin<AssetOverview>(`${BASE}${encodeURIComponent(id)}/overview/`);
}
