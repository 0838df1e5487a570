import { signal } from '@preact/signals-react';

/**
 * The server's maintenance notice (docs/api-admin.md "Maintenance mode"): set when an answer says so, cleared by
 * the next successful answer from the network. The layout shows it as a banner.
 */
export const maintenanceNotice = signal<string | null>(null);

export function isMaintenanceAnswer(status: number, data: unknown): data is { detail: string; code: 'maintenance' } {
  return (
    status === 503 &&
    typeof data === 'object' &&
    data !== null &&
    (data as { code?: unknown }).code === 'maintenance' &&
    typeof (data as { detail?: unknown }).detail === 'string'
  );
}
