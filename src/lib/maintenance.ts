import { signal } from '@preact/signals-react';
import { isErrorOf } from '../../contract/api-error.ts';

/**
 * The server's maintenance notice (docs/api-admin.md "Maintenance mode"): set when an answer says so, cleared by
 * the next successful answer from the network. The layout shows it as a banner.
 */
export const maintenanceNotice = signal<string | null>(null);

export function isMaintenanceAnswer(status: number, data: unknown): data is { detail: string; code: 'maintenance' } {
  return status === 503 && isErrorOf(data, 'maintenance');
}
