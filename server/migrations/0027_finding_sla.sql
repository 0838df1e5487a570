CREATE TABLE "triage_settings" (
	"tenant_id" uuid PRIMARY KEY NOT NULL,
	"sla_critical_days" integer DEFAULT 7,
	"sla_high_days" integer DEFAULT 30,
	"sla_medium_days" integer DEFAULT 90,
	"sla_low_days" integer DEFAULT 180,
	"sla_info_days" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" integer
);
--> statement-breakpoint
ALTER TABLE "triage_settings" ADD CONSTRAINT "triage_settings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "triage_settings" ADD CONSTRAINT "triage_settings_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "vulnerabilities_open_due_idx" ON "vulnerabilities" USING btree ("tenant_id","due_date") WHERE not "vulnerabilities"."is_resolved";--> statement-breakpoint
CREATE INDEX "vulnerabilities_resolved_at_idx" ON "vulnerabilities" USING btree ("tenant_id","resolved_at") WHERE "vulnerabilities"."is_resolved";
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE ON triage_settings TO vigie_app;
--> statement-breakpoint
ALTER TABLE triage_settings ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON triage_settings
  USING (tenant_id = app_current_tenant())
  WITH CHECK (tenant_id = app_current_tenant());
--> statement-breakpoint
-- A new open finding without a due date gets one from its tenant's SLA (the defaults while the tenant set none:
-- critique 7 j, élevée 30 j, moyenne 90 j, faible 180 j, info none), counted from the day it was first seen; a KEV
-- finding takes CISA's due date when that is earlier. Every writer (the API, imports, the seed, bulk tools) gets it.
CREATE FUNCTION vulnerability_due_date() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  days integer;
  kev_due date;
BEGIN
  IF NEW.due_date IS NOT NULL OR NEW.is_resolved THEN
    RETURN NEW;
  END IF;
  SELECT CASE NEW.severity WHEN 'critical' THEN s.sla_critical_days WHEN 'high' THEN s.sla_high_days
                           WHEN 'medium' THEN s.sla_medium_days WHEN 'low' THEN s.sla_low_days
                           ELSE s.sla_info_days END
    INTO days FROM triage_settings s WHERE s.tenant_id = NEW.tenant_id;
  IF NOT FOUND THEN
    days := CASE NEW.severity WHEN 'critical' THEN 7 WHEN 'high' THEN 30 WHEN 'medium' THEN 90 WHEN 'low' THEN 180 END;
  END IF;
  IF days IS NOT NULL THEN
    NEW.due_date := (COALESCE(NEW.first_seen, now()) AT TIME ZONE 'UTC')::date + days;
  END IF;
  IF NEW.kev AND NEW.cve_id IS NOT NULL THEN
    SELECT c.kev_due_date INTO kev_due FROM cves c WHERE c.cve_id = NEW.cve_id;
    IF kev_due IS NOT NULL AND (NEW.due_date IS NULL OR kev_due < NEW.due_date) THEN
      NEW.due_date := kev_due;
    END IF;
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER vulnerabilities_due_date BEFORE INSERT ON vulnerabilities
  FOR EACH ROW EXECUTE FUNCTION vulnerability_due_date();
