export interface UserProfile {
  id: number | string;
  username: string;
  email: string;
  first_name?: string;
  last_name?: string;
  is_active?: boolean;
  role?: string;
  is_staff?: boolean;
  is_superuser?: boolean;
  tenants?: { id: string; name: string }[];
  tenant_memberships?: { tenant_id: string; tenant_name?: string; role?: string }[];
  active_features?: string[];
  permissions?: string[];
  date_joined?: string;
  last_login?: string | null;
  current_tenant?: { id: string; name: string } | null;
  preferred_username?: string;
  name?: string;
}

/** spec §3 token set; expires_at in milliseconds. */
export interface TokenSet {
  access_token: string;
  refresh_token: string;
  expires_at: number;
}
