// Stored values as an answer or an export can always write them: a row an older version (or a restore) left in an
// unexpected shape is shown as it is, never an exception in the middle of a streamed file.

/** An ISO 8601 timestamp; a stored value JavaScript cannot represent ('infinity', year 300000) as its text. */
export function isoTime(value: Date): string {
  return value instanceof Date && !Number.isNaN(value.getTime()) ? value.toISOString() : String(value);
}

/** A JSON object column's value, or an empty object when the stored JSON is null, a list or a scalar. */
export function storedObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
