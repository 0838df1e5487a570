import { ASSET_MESSAGES } from '../schemas/assets.ts';
import { unlessDuplicate } from './unique-writes.ts';

/** A write that hits the (tenant, name) unique index is a 409 with the field named. */
export const unlessDuplicateAsset = <T>(write: Promise<T>): Promise<T> =>
  unlessDuplicate(write, ASSET_MESSAGES.duplicate, 'name');
