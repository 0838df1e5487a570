-- Issue 21, « unknown is not Info » (docs/severity.md): a CVE record without CVSS and a finding nothing rated are
-- 'unrated' (« Non évaluée »), sorted after Info, counted and filtered apart; a CVE record says who scored it (NVD,
-- the CNA, CISA's ADP); a finding says who gave its severity (the scanner, the CVE store's source, an analyst), and an
-- analyst's override keeps the source's rating under it (rated_*) with its reason. Records imported before this
-- migration: an unscored CVE becomes unrated, and so does a finding on it that only carried the old 'info' stand-in
-- (no score of its own); NVD records are NVD-scored; CVE 5 records keep no provider until re-imported (CNA or ADP
-- cannot be told apart afterwards). Findings whose severity and score are their CVE's take its source; hand-made
-- ones the analyst's.
ALTER TABLE "cves" ALTER COLUMN "severity" SET DEFAULT 'unrated';--> statement-breakpoint
ALTER TABLE "cves" ADD COLUMN "cvss_source" text;--> statement-breakpoint
ALTER TABLE "triage_settings" ADD COLUMN "sla_unrated_days" integer;--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD COLUMN "severity_source" text DEFAULT 'scanner' NOT NULL;--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD COLUMN "severity_reason" text;--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD COLUMN "rated_severity" text;--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD COLUMN "rated_source" text;--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD CONSTRAINT "vulnerabilities_severity_known" CHECK (severity in ('critical', 'high', 'medium', 'low', 'info', 'unrated'));--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD CONSTRAINT "vulnerabilities_severity_source_known" CHECK (severity_source in ('scanner', 'nvd', 'cna', 'adp', 'analyst'));--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD CONSTRAINT "vulnerabilities_rated_override" CHECK (("vulnerabilities"."rated_severity" is null) = ("vulnerabilities"."rated_source" is null) and ("vulnerabilities"."rated_source" is null or "vulnerabilities"."severity_source" = 'analyst'));--> statement-breakpoint
UPDATE cves SET severity = 'unrated'
 WHERE severity = 'info' AND cvss4_vector IS NULL AND cvss3_vector IS NULL AND cvss2_vector IS NULL;--> statement-breakpoint
UPDATE cves SET cvss_source = CASE source WHEN 'nvd' THEN 'nvd' ELSE 'cna' END
 WHERE source IN ('nvd', 'cve5') AND severity <> 'unrated';--> statement-breakpoint
UPDATE vulnerabilities v SET severity = 'unrated' FROM cves c
 WHERE c.cve_id = v.cve_id AND c.severity = 'unrated' AND v.severity = 'info' AND v.cvss_score IS NULL;--> statement-breakpoint
UPDATE vulnerabilities v SET severity_source = c.cvss_source FROM cves c
 WHERE c.cve_id = v.cve_id AND c.cvss_source IS NOT NULL AND v.severity = c.severity
   AND v.cvss_score IS NOT DISTINCT FROM coalesce(c.cvss4_score, c.cvss3_score, c.cvss2_score);--> statement-breakpoint
UPDATE vulnerabilities SET severity_source = 'analyst' WHERE source = 'manual' AND severity_source = 'scanner';--> statement-breakpoint
-- An unrated finding takes the tenant's « Non évaluée » deadline (none by default), no longer Info's.
CREATE OR REPLACE FUNCTION vulnerability_due_date() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  days integer;
  kev_due date;
BEGIN
  IF NEW.due_date IS NOT NULL OR NEW.is_resolved THEN
    RETURN NEW;
  END IF;
  SELECT CASE NEW.severity WHEN 'critical' THEN s.sla_critical_days WHEN 'high' THEN s.sla_high_days
                           WHEN 'medium' THEN s.sla_medium_days WHEN 'low' THEN s.sla_low_days
                           WHEN 'info' THEN s.sla_info_days ELSE s.sla_unrated_days END
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
