/**
 * The client's audit events (docs/api-audit.md): what a browser buffered, stored as `frontend` events of the
 * trail. Identity comes from the credentials, never from what the client wrote into an event.
 */
import type { Db } from '../db/client.ts';
import { auditEvents, type AuditSeverity } from '../db/schema.ts';
import type { ClientEvent } from '../schemas/audit.ts';
import { clipText } from '../../../contract/text.ts';
import { describeClientEvent } from './client-event-descriptions.ts';

// The client's levels (lower case, with debug) onto the trail's severities.
const SEVERITY: Record<string, AuditSeverity> = {
  debug: 'INFO',
  info: 'INFO',
  warning: 'WARNING',
  error: 'ERROR',
  critical: 'CRITICAL',
};

/** Who sent the batch, as the server knows it. */
export interface EventSender {
  tenantId: string | null;
  userId: number | null;
  username: string | null;
  ip: string;
  userAgent: { browser: string; os: string };
  authenticated: boolean;
  /** A paired wall screen (docs/displays.md): its events are its tenant's, under its id. */
  displayId?: string;
}

// Own keys only: a client's `constructor` must not find Object's.
const severityOf = (raw: unknown): AuditSeverity => {
  const key = String(raw);
  return Object.hasOwn(SEVERITY, key) ? SEVERITY[key]! : 'INFO';
};

// Cut by characters: half an emoji would be a lone surrogate, which PostgreSQL's JSON refuses.
const text = (v: unknown, max: number) => (typeof v === 'string' ? clipText(v, max) : undefined);

function rowsOf(events: readonly ClientEvent[], sender: EventSender) {
  return events.map((e) => {
    const eventType = (text(e.event_type, 64) ?? 'ui_event').replace(/[^\w.:-]/g, '_');
    const details =
      e.details && typeof e.details === 'object' && !Array.isArray(e.details)
        ? (e.details as Record<string, unknown>)
        : {};
    return {
      tenantId: sender.tenantId,
      eventType,
      userId: sender.userId,
      username: sender.username,
      ipAddress: sender.ip,
      description: text(details.description, 500) ?? describeClientEvent(eventType, details),
      severity: severityOf(e.severity),
      source: 'frontend',
      clientEventId: text(e.event_id, 64) ?? null,
      details: {
        ...sender.userAgent,
        success: details.success !== false,
        client_timestamp: text(e.timestamp, 40),
        url: text(e.url, 2000),
        client: JSON.stringify(details).length > 8192 ? { truncated: true } : details,
        ...(sender.authenticated ? {} : { unauthenticated: true }),
        ...(sender.displayId !== undefined ? { display_id: sender.displayId } : {}),
      },
    } satisfies typeof auditEvents.$inferInsert;
  });
}

/** Stores a (non-empty) batch; an event already received (same event_id) is skipped. Answers how many were new. */
export async function storeClientEvents(db: Db, events: readonly ClientEvent[], sender: EventSender): Promise<number> {
  const inserted = await db
    .insert(auditEvents)
    .values(rowsOf(events, sender))
    .onConflictDoNothing()
    .returning({ id: auditEvents.id });
  return inserted.length;
}
