// Field lists of the API contract that several suites check.

/** An asset's own attributes, in the order the inventory and the model administration give them. */
export const ASSET_ATTRIBUTES = [
  'name',
  'asset_type',
  'hostname',
  'ip_address',
  'operating_system',
  'criticality',
  'owner',
  'description',
  'tags',
] as const;

/** A user as the user administration lists them, and the start of the signed-in profile. */
export const USER_FIELDS = [
  'id',
  'username',
  'email',
  'first_name',
  'last_name',
  'is_active',
  'date_joined',
  'last_login',
  'role',
  'is_staff',
  'is_superuser',
] as const;
