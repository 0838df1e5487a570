import { ApiError } from '../domain/errors.ts';
import { uniqueViolation } from '../repositories/tenant-users.ts';

/**
 * `write`, or a 409 `duplicate` with `detail` when it hits a unique index (the index decides, not a prior read),
 * the message on `field` too when one is named.
 */
export async function unlessDuplicate<T>(write: Promise<T>, detail: string, field?: string): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (uniqueViolation(err) === undefined) throw err;
    throw new ApiError(409, 'duplicate', detail, field === undefined ? {} : { fields: { [field]: [detail] } });
  }
}
