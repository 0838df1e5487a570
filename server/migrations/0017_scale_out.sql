CREATE TABLE "email_changes" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"new_email" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "attempt_counters" (
	"key" text PRIMARY KEY NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "login_lockouts" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "server_processes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"role" text NOT NULL,
	"hostname" text DEFAULT '' NOT NULL,
	"pid" integer NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"stopped_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"purpose" text NOT NULL,
	"secret" text,
	"fingerprint" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retired_at" timestamp with time zone,
	CONSTRAINT "signing_keys_purpose" CHECK ("signing_keys"."purpose" in ('access', 'seal'))
);
--> statement-breakpoint
DROP INDEX "vulnerabilities_tenant_cve_idx";--> statement-breakpoint
ALTER TABLE "task_runs" ADD COLUMN "process_id" uuid;--> statement-breakpoint
ALTER TABLE "email_changes" ADD CONSTRAINT "email_changes_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "attempt_counters_window_idx" ON "attempt_counters" USING btree ("window_start");--> statement-breakpoint
CREATE INDEX "login_lockouts_updated_idx" ON "login_lockouts" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "server_processes_heartbeat_idx" ON "server_processes" USING btree ("heartbeat_at");--> statement-breakpoint
CREATE INDEX "signing_keys_purpose_idx" ON "signing_keys" USING btree ("purpose","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "signing_keys_current_idx" ON "signing_keys" USING btree ("purpose") WHERE "signing_keys"."retired_at" is null;--> statement-breakpoint
CREATE INDEX "task_runs_status_process_idx" ON "task_runs" USING btree ("status","process_id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_tenant_scan_idx" ON "vulnerabilities" USING btree ("tenant_id","scan_id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_tenant_updated_idx" ON "vulnerabilities" USING btree ("tenant_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_tenant_last_seen_idx" ON "vulnerabilities" USING btree ("tenant_id","last_seen","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_tenant_title_idx" ON "vulnerabilities" USING btree ("tenant_id","title","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_tenant_severity_rank_idx" ON "vulnerabilities" USING btree ("tenant_id",(case "severity" when 'critical' then 5 when 'high' then 4 when 'medium' then 3 when 'low' then 2 else 1 end),"id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_tenant_cvss_idx" ON "vulnerabilities" USING btree ("tenant_id","cvss_score","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_tenant_cvss_desc_idx" ON "vulnerabilities" USING btree ("tenant_id","cvss_score" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "vulnerabilities_tenant_cve_desc_idx" ON "vulnerabilities" USING btree ("tenant_id","cve_id" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "vulnerabilities_tenant_cve_idx" ON "vulnerabilities" USING btree ("tenant_id","cve_id","id");