CREATE TABLE "finding_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "finding_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"tenant_id" uuid NOT NULL,
	"vulnerability_id" bigint NOT NULL,
	"user_id" integer,
	"kind" text NOT NULL,
	"from_value" text,
	"to_value" text,
	"comment" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD COLUMN "state" text DEFAULT 'new' NOT NULL;--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD COLUMN "state_changed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD COLUMN "state_reason" text;--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD COLUMN "accepted_by" integer;--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD COLUMN "accepted_until" date;--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD COLUMN "assignee_id" integer;--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD COLUMN "due_date" date;--> statement-breakpoint
ALTER TABLE "finding_events" ADD CONSTRAINT "finding_events_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finding_events" ADD CONSTRAINT "finding_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finding_events" ADD CONSTRAINT "finding_events_vulnerability_fk" FOREIGN KEY ("tenant_id","vulnerability_id") REFERENCES "public"."vulnerabilities"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "finding_events_finding_idx" ON "finding_events" USING btree ("tenant_id","vulnerability_id","id");--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD CONSTRAINT "vulnerabilities_accepted_by_users_id_fk" FOREIGN KEY ("accepted_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD CONSTRAINT "vulnerabilities_assignee_id_users_id_fk" FOREIGN KEY ("assignee_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "vulnerabilities_tenant_assignee_idx" ON "vulnerabilities" USING btree ("tenant_id","assignee_id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_accepted_until_idx" ON "vulnerabilities" USING btree ("accepted_until") WHERE "vulnerabilities"."state" = 'accepted';--> statement-breakpoint
-- Findings resolved before the lifecycle existed are closed ones.
UPDATE vulnerabilities SET state = 'verified', state_changed_at = resolved_at WHERE is_resolved;--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD CONSTRAINT "vulnerabilities_state_resolved" CHECK (is_resolved = (state in ('fixed', 'verified', 'false_positive', 'accepted', 'out_of_scope')));--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD CONSTRAINT "vulnerabilities_state_known" CHECK (state in ('new', 'confirmed', 'in_progress', 'fixed', 'verified', 'false_positive', 'accepted', 'out_of_scope'));--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD CONSTRAINT "vulnerabilities_acceptance" CHECK (("vulnerabilities"."state" = 'accepted') = ("vulnerabilities"."accepted_until" is not null));--> statement-breakpoint
GRANT SELECT, INSERT ON finding_events TO vigie_app;
--> statement-breakpoint
GRANT USAGE, SELECT ON SEQUENCE finding_events_id_seq TO vigie_app;
--> statement-breakpoint
ALTER TABLE finding_events ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON finding_events
  USING (tenant_id = app_current_tenant())
  WITH CHECK (tenant_id = app_current_tenant());
