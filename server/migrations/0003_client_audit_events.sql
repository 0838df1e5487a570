ALTER TABLE "audit_events" ADD COLUMN "client_event_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_client_event_idx" ON "audit_events" USING btree ("client_event_id");