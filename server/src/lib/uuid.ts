/** A UUID, any case (the JSON Schema pattern of path and query fields). */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const UUID_RE = new RegExp(UUID_PATTERN);

export const isUuid = (raw: string): boolean => UUID_RE.test(raw);
