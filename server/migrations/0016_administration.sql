CREATE TABLE "admin_config" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"values" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" integer,
	CONSTRAINT "admin_config_singleton" CHECK ("admin_config"."id" = 1)
);
--> statement-breakpoint
CREATE TABLE "backups" (
	"id" uuid PRIMARY KEY NOT NULL,
	"filename" text NOT NULL,
	"engine" text NOT NULL,
	"status" text DEFAULT 'RUNNING' NOT NULL,
	"size" bigint,
	"sha256" text,
	"note" text DEFAULT '' NOT NULL,
	"error" text,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "server_logs" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "server_logs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"time" timestamp with time zone DEFAULT now() NOT NULL,
	"level" text NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"request_id" text,
	"method" text,
	"url" text,
	"status_code" integer,
	"response_time_ms" double precision,
	"tenant_id" uuid,
	"user_id" integer,
	"context" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "security_policies" ADD COLUMN "password_require_uppercase" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "security_policies" ADD COLUMN "password_require_lowercase" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "security_policies" ADD COLUMN "password_require_digit" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "security_policies" ADD COLUMN "password_require_symbol" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "security_policies" ADD COLUMN "two_factor_required_roles" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "security_policies" ADD COLUMN "session_lifetime_minutes" integer DEFAULT 10080 NOT NULL;--> statement-breakpoint
ALTER TABLE "security_policies" ADD COLUMN "lockout_threshold" integer DEFAULT 10 NOT NULL;--> statement-breakpoint
ALTER TABLE "security_policies" ADD COLUMN "lockout_minutes" integer DEFAULT 15 NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "deleted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "deleted_by" integer;--> statement-breakpoint
ALTER TABLE "admin_config" ADD CONSTRAINT "admin_config_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "backups" ADD CONSTRAINT "backups_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "server_logs_time_idx" ON "server_logs" USING btree ("time");--> statement-breakpoint
CREATE INDEX "server_logs_level_time_idx" ON "server_logs" USING btree ("level","time");--> statement-breakpoint
-- server_logs is a platform table read through the owner connection; the tenant role gets no grant, and row-level
-- security stays on so that a future grant could never expose another tenant's lines.
ALTER TABLE server_logs ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON server_logs
  USING (tenant_id = app_current_tenant())
  WITH CHECK (tenant_id = app_current_tenant());
