CREATE TABLE "display_pairings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"code_hash" text NOT NULL,
	"poll_secret_hash" text NOT NULL,
	"created_ip" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"approved_at" timestamp with time zone,
	"display_id" uuid,
	"consumed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "displays" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid NOT NULL,
	"name" text NOT NULL,
	"tenant_ids" uuid[] NOT NULL,
	"panels" text[] NOT NULL,
	"rotation_s" integer DEFAULT 30 NOT NULL,
	"theme" text DEFAULT 'dark' NOT NULL,
	"text_size" text DEFAULT 'normal' NOT NULL,
	"token_hash" text,
	"token_issued_at" timestamp with time zone,
	"previous_token_hash" text,
	"previous_token_expires_at" timestamp with time zone,
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone,
	"last_ip" text,
	"version" text,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "displays_tenant_count" CHECK (cardinality("displays"."tenant_ids") between 1 and 20),
	CONSTRAINT "displays_rotation" CHECK ("displays"."rotation_s" between 5 and 3600),
	CONSTRAINT "displays_theme" CHECK ("displays"."theme" in ('dark', 'light')),
	CONSTRAINT "displays_text_size" CHECK ("displays"."text_size" in ('normal', 'large', 'xlarge'))
);
--> statement-breakpoint
ALTER TABLE "display_pairings" ADD CONSTRAINT "display_pairings_display_id_displays_id_fk" FOREIGN KEY ("display_id") REFERENCES "public"."displays"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "displays" ADD CONSTRAINT "displays_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "displays" ADD CONSTRAINT "displays_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "display_pairings_code_hash_key" ON "display_pairings" USING btree ("code_hash");--> statement-breakpoint
CREATE INDEX "display_pairings_expires_idx" ON "display_pairings" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "displays_tenant_id_key" ON "displays" USING btree ("tenant_id","id");--> statement-breakpoint
CREATE INDEX "displays_tenant_created_idx" ON "displays" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "displays_token_hash_key" ON "displays" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "displays_previous_token_hash_key" ON "displays" USING btree ("previous_token_hash");--> statement-breakpoint
-- Displays are managed in the tenant they were paired in (issue 22): the application role reads and changes them
-- there only. Devices are recognised, and pairings kept, on the owner connection: display_pairings belong to no
-- tenant and the application role is granted nothing on them.
GRANT SELECT, INSERT, UPDATE ON displays TO vigie_app;
--> statement-breakpoint
ALTER TABLE displays ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON displays
  USING (tenant_id = app_current_tenant())
  WITH CHECK (tenant_id = app_current_tenant());
