-- Issue 21, prioritisation (docs/ssvc.md): the asset's « exposé à Internet », the tenant's EPSS threshold, and each
-- finding's SSVC decision kept on it, so the list sorts and filters by it and the dashboard counts the Act ones from
-- the totals. The decision is one SQL expression, ssvc_decision_of(), mirroring contract/ssvc.ts and domain/ssvc.ts
-- (tests/server/ssvc-decision.test.ts checks it against assessSsvc on every branch); a rank (1 track, 2 track*,
-- 3 attend, 4 act), 0 (none) exactly when the finding is resolved. The findings list's cell indexes (migration 0021)
-- take the decision as a fifth cell column: a decision filter walks exactly its cells, and the SSVC ordering is the
-- id order inside a cell, as the severity ordering is.
ALTER TABLE "assets" ADD COLUMN "internet_exposed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "triage_settings" ADD COLUMN "epss_threshold" double precision DEFAULT 0.1 NOT NULL;--> statement-breakpoint
ALTER TABLE "triage_settings" ADD CONSTRAINT "triage_settings_epss_threshold" CHECK ("triage_settings"."epss_threshold" > 0 and "triage_settings"."epss_threshold" <= 1);--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD COLUMN "ssvc_decision" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "vulnerability_totals" ADD COLUMN "ssvc_decision" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "vulnerability_totals" DROP CONSTRAINT "vulnerability_totals_tenant_id_severity_is_resolved_kev_pk";--> statement-breakpoint
ALTER TABLE "vulnerability_totals" ADD CONSTRAINT "vulnerability_totals_tenant_id_severity_is_resolved_kev_ssvc_decision_pk" PRIMARY KEY("tenant_id","severity","is_resolved","kev","ssvc_decision");--> statement-breakpoint
-- Whether CVSS metric `metric` of `vector` is `expected`, read as domain/ssvc.ts metricsOf() reads it: the vector
-- trimmed, split at '/', each part « key:value », the last part naming the key with a value winning. Plain
-- expressions (no FROM), so that the planner inlines them into each query.
CREATE FUNCTION ssvc_metric_is(vector text, metric text, expected text) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $fn$
  SELECT coalesce(substring('/' || btrim(vector, E' \t\n\r\f\x0B') FROM '.*/' || metric || ':([^/:]+)') = expected, false)
$fn$;
--> statement-breakpoint
-- A vector's CVSS version: the digit of its « CVSS:n » prefix, 2 without one.
CREATE FUNCTION ssvc_cvss_version(vector text) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $fn$
  SELECT coalesce(substring(btrim(vector, E' \t\n\r\f\x0B') FROM '^CVSS:([0-9])')::integer, 2)
$fn$;
--> statement-breakpoint
-- SSVC's « automatable » of a vector (1 yes, 0 no): v2 AV:N, AC:L, Au:N; v3 AV:N, AC:L, PR:N, UI:N; v4 the same and AT:N.
CREATE FUNCTION ssvc_automatable(vector text) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $fn$
  SELECT (CASE WHEN ssvc_cvss_version(vector) = 2
               THEN ssvc_metric_is(vector, 'AV', 'N') AND ssvc_metric_is(vector, 'AC', 'L') AND ssvc_metric_is(vector, 'Au', 'N')
               ELSE ssvc_metric_is(vector, 'AV', 'N') AND ssvc_metric_is(vector, 'AC', 'L') AND ssvc_metric_is(vector, 'PR', 'N')
                    AND ssvc_metric_is(vector, 'UI', 'N') AND (ssvc_cvss_version(vector) < 4 OR ssvc_metric_is(vector, 'AT', 'N'))
          END)::integer
$fn$;
--> statement-breakpoint
-- SSVC's « technical impact » of a vector (1 total, 0 partial): v2 C:C and I:C; v3 C:H and I:H; v4 VC:H and VI:H.
CREATE FUNCTION ssvc_total_impact(vector text) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $fn$
  SELECT (CASE WHEN ssvc_cvss_version(vector) = 2 THEN ssvc_metric_is(vector, 'C', 'C') AND ssvc_metric_is(vector, 'I', 'C')
               WHEN ssvc_cvss_version(vector) >= 4 THEN ssvc_metric_is(vector, 'VC', 'H') AND ssvc_metric_is(vector, 'VI', 'H')
               ELSE ssvc_metric_is(vector, 'C', 'H') AND ssvc_metric_is(vector, 'I', 'H')
          END)::integer
$fn$;
--> statement-breakpoint
-- CISA's SSVC decision (contract/ssvc.ts SSVC_TABLE) of a finding's facts, as domain/ssvc.ts assessSsvc() reads them:
-- exploitation (KEV: active; EPSS at or above the threshold, or a public exploit: poc), automatable and technical
-- impact from the CVSS vector (without one: not automatable, total impact), mission and well-being from the asset's
-- criticality and exposure (no asset: medium). The table is read at 1 + 12 e + 6 a + 3 t + m (e: none, poc, active;
-- a: no, yes; t: partial, total; m: low, medium, high), each cell a decision's rank.
CREATE FUNCTION ssvc_decision_of(
  kev boolean, epss double precision, exploit_reference boolean, cvss_vector text, criticality text,
  internet_exposed boolean, epss_threshold double precision
) RETURNS smallint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $fn$
  SELECT ('{1,1,1,1,1,2,1,1,1,1,1,3,1,1,2,1,2,3,1,1,3,1,2,3,1,1,3,1,3,4,3,3,4,3,4,4}'::smallint[])[
    1 + 12 * (CASE WHEN coalesce(kev, false) THEN 2
                   WHEN coalesce(epss >= epss_threshold, false) OR coalesce(exploit_reference, false) THEN 1
                   ELSE 0 END)
      + 6 * (CASE WHEN coalesce(cvss_vector, '') = '' THEN 0 ELSE ssvc_automatable(cvss_vector) END)
      + 3 * (CASE WHEN coalesce(cvss_vector, '') = '' THEN 1 ELSE ssvc_total_impact(cvss_vector) END)
      + (CASE criticality WHEN 'critical' THEN 2
                          WHEN 'high' THEN (CASE WHEN coalesce(internet_exposed, false) THEN 2 ELSE 1 END)
                          WHEN 'medium' THEN (CASE WHEN coalesce(internet_exposed, false) THEN 1 ELSE 0 END)
                          WHEN 'low' THEN 0
                          ELSE 1 END)]
$fn$;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION ssvc_metric_is(text, text, text), ssvc_cvss_version(text), ssvc_automatable(text), ssvc_total_impact(text), ssvc_decision_of(boolean, double precision, boolean, text, text, boolean, double precision) TO vigie_app;
--> statement-breakpoint
-- Each finding's decision from its facts: its own KEV flag and vector, its CVE's EPSS score and references (the CVE
-- store), its asset, its tenant's EPSS threshold (0.1, DEFAULT_EPSS_THRESHOLD, while the tenant set none); 0 when it
-- is resolved. `kept` is the decision the finding holds. The set-based updates below and in repositories/cves.ts
-- write `decision` where it differs from `kept`. Not granted to vigie_app: the owner's triggers below and the CVE
-- importers read it; with the reader's rights, should another role read it (row-level security applies).
CREATE VIEW finding_ssvc_decisions WITH (security_invoker = true) AS
SELECT f.id, f.tenant_id, f.asset_id, f.cve_id, f.kev, f.is_resolved, f.ssvc_decision AS kept, c.epss_score AS epss,
       (CASE WHEN f.is_resolved THEN 0
             ELSE ssvc_decision_of(f.kev, c.epss_score, coalesce(c."references" @> '[{"tags": ["Exploit"]}]', false),
                                   f.cvss_vector, a.criticality, a.internet_exposed, coalesce(s.epss_threshold, 0.1))
        END)::smallint AS decision
  FROM vulnerabilities f
  LEFT JOIN cves c ON c.cve_id = f.cve_id
  LEFT JOIN assets a ON a.id = f.asset_id AND a.tenant_id = f.tenant_id
  LEFT JOIN triage_settings s ON s.tenant_id = f.tenant_id;
--> statement-breakpoint
-- The open findings' decisions, once: the cell indexes dropped first (rebuilt with the decision below), and without
-- the counters' and texts' triggers (nothing they count or index changes but the decision; the totals are rebuilt).
-- ADD COLUMN holds vulnerabilities exclusively until commit.
DROP INDEX "vulnerabilities_cell_id_idx";--> statement-breakpoint
DROP INDEX "vulnerabilities_cell_created_idx";--> statement-breakpoint
DROP INDEX "vulnerabilities_cell_updated_idx";--> statement-breakpoint
DROP INDEX "vulnerabilities_cell_last_seen_idx";--> statement-breakpoint
DROP INDEX "vulnerabilities_cell_title_idx";--> statement-breakpoint
DROP INDEX "vulnerabilities_cell_cvss_idx";--> statement-breakpoint
DROP INDEX "vulnerabilities_cell_cvss_desc_idx";--> statement-breakpoint
DROP INDEX "vulnerabilities_cell_cve_idx";--> statement-breakpoint
DROP INDEX "vulnerabilities_cell_cve_desc_idx";--> statement-breakpoint
ALTER TABLE vulnerabilities DISABLE TRIGGER vulnerabilities_counts_update;
--> statement-breakpoint
ALTER TABLE vulnerabilities DISABLE TRIGGER vulnerabilities_texts_update;
--> statement-breakpoint
UPDATE vulnerabilities v SET ssvc_decision = d.decision
  FROM finding_ssvc_decisions d
 WHERE d.id = v.id AND NOT d.is_resolved;
--> statement-breakpoint
ALTER TABLE vulnerabilities ENABLE TRIGGER vulnerabilities_counts_update;
--> statement-breakpoint
ALTER TABLE vulnerabilities ENABLE TRIGGER vulnerabilities_texts_update;
--> statement-breakpoint
DELETE FROM vulnerability_totals;
--> statement-breakpoint
INSERT INTO vulnerability_totals (tenant_id, severity, is_resolved, kev, ssvc_decision, n)
SELECT tenant_id, severity, is_resolved, kev, ssvc_decision, count(*)
  FROM vulnerabilities GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5;
--> statement-breakpoint
ALTER TABLE "vulnerabilities" ADD CONSTRAINT "vulnerabilities_ssvc_decision" CHECK (case when "vulnerabilities"."is_resolved" then "vulnerabilities"."ssvc_decision" = 0 else "vulnerabilities"."ssvc_decision" between 1 and 4 end);--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_id_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","ssvc_decision","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_created_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","ssvc_decision","created_at","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_updated_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","ssvc_decision","updated_at","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_last_seen_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","ssvc_decision","last_seen","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_title_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","ssvc_decision","title","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_cvss_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","ssvc_decision","cvss_score","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_cvss_desc_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","ssvc_decision","cvss_score" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_cve_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","ssvc_decision","cve_id","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_cve_desc_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","ssvc_decision","cve_id" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
-- Same function as migration 0010, the totals counted by SSVC decision too.
CREATE OR REPLACE FUNCTION vulnerabilities_maintain_counts() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path = public, pg_temp
  AS $fn$
DECLARE
  src text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT *, 1 AS sign FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT *, -1 AS sign FROM old_rows'
    ELSE 'SELECT *, 1 AS sign FROM new_rows UNION ALL SELECT *, -1 AS sign FROM old_rows'
  END;
BEGIN
  EXECUTE format($q$
    WITH ch AS (%s)
    INSERT INTO vulnerability_counts AS c (tenant_id, asset_id, severity, is_resolved, kev, n)
    SELECT tenant_id, coalesce(asset_id, 0), severity, is_resolved, kev, sum(sign)
      FROM ch GROUP BY 1, 2, 3, 4, 5 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, asset_id, severity, is_resolved, kev) DO UPDATE SET n = c.n + excluded.n
  $q$, src);
  EXECUTE format($q$
    WITH ch AS (%s)
    INSERT INTO vulnerability_daily_counts AS c (tenant_id, day, severity, is_resolved, kev, n)
    SELECT tenant_id, (created_at AT TIME ZONE 'UTC')::date, severity, is_resolved, kev, sum(sign)
      FROM ch GROUP BY 1, 2, 3, 4, 5 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, day, severity, is_resolved, kev) DO UPDATE SET n = c.n + excluded.n
  $q$, src);
  EXECUTE format($q$
    WITH ch AS (%s)
    INSERT INTO vulnerability_cwe_counts AS c (tenant_id, cwe_id, severity, is_resolved, kev, n)
    SELECT tenant_id, w.cwe_id, severity, is_resolved, kev, sum(sign)
      FROM ch CROSS JOIN LATERAL (SELECT DISTINCT u AS cwe_id FROM unnest(ch.cwe_ids) u) w
      GROUP BY 1, 2, 3, 4, 5 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, cwe_id, severity, is_resolved, kev) DO UPDATE SET n = c.n + excluded.n
  $q$, src);
  EXECUTE format($q$
    WITH ch AS (%s)
    INSERT INTO vulnerability_totals AS c (tenant_id, severity, is_resolved, kev, ssvc_decision, n)
    SELECT tenant_id, severity, is_resolved, kev, ssvc_decision, sum(sign)
      FROM ch GROUP BY 1, 2, 3, 4, 5 HAVING sum(sign) <> 0 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, severity, is_resolved, kev, ssvc_decision) DO UPDATE SET n = c.n + excluded.n
  $q$, src);
  IF TG_OP = 'DELETE' THEN
    DELETE FROM vulnerability_counts WHERE n = 0 AND tenant_id IN (SELECT DISTINCT tenant_id FROM old_rows);
    DELETE FROM vulnerability_daily_counts WHERE n = 0 AND tenant_id IN (SELECT DISTINCT tenant_id FROM old_rows);
    DELETE FROM vulnerability_cwe_counts WHERE n = 0 AND tenant_id IN (SELECT DISTINCT tenant_id FROM old_rows);
    DELETE FROM vulnerability_totals WHERE n = 0 AND tenant_id IN (SELECT DISTINCT tenant_id FROM old_rows);
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
-- A finding's decision follows its own facts on every write, whoever writes (the API, scan imports, bulk work, the
-- seed, the generator): computed before the row is stored, the same facts as finding_ssvc_decisions reads.
CREATE FUNCTION vulnerability_ssvc_decision() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  epss double precision;
  exploit boolean;
  criticality text;
  exposed boolean;
  threshold double precision;
BEGIN
  IF NEW.is_resolved THEN
    NEW.ssvc_decision := 0;
    RETURN NEW;
  END IF;
  IF NEW.cve_id IS NOT NULL THEN
    SELECT c.epss_score, c."references" @> '[{"tags": ["Exploit"]}]' INTO epss, exploit
      FROM cves c WHERE c.cve_id = NEW.cve_id;
  END IF;
  IF NEW.asset_id IS NOT NULL THEN
    SELECT a.criticality, a.internet_exposed INTO criticality, exposed
      FROM assets a WHERE a.id = NEW.asset_id AND a.tenant_id = NEW.tenant_id;
  END IF;
  SELECT s.epss_threshold INTO threshold FROM triage_settings s WHERE s.tenant_id = NEW.tenant_id;
  NEW.ssvc_decision := ssvc_decision_of(NEW.kev, epss, coalesce(exploit, false), NEW.cvss_vector, criticality, exposed,
                                        coalesce(threshold, 0.1));
  RETURN NEW;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER vulnerabilities_ssvc_decision
  BEFORE INSERT OR UPDATE OF tenant_id, asset_id, cve_id, kev, cvss_vector, is_resolved ON vulnerabilities
  FOR EACH ROW EXECUTE FUNCTION vulnerability_ssvc_decision();
--> statement-breakpoint
-- An asset's criticality or exposure moves the decisions of its open findings (the asset index finds them). As the
-- owner (the view is not the application's), confined to the asset's tenant: the asset row was written under its
-- row-level security.
CREATE FUNCTION asset_ssvc_decisions() RETURNS trigger
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = public, pg_temp
  AS $fn$
BEGIN
  UPDATE vulnerabilities v SET ssvc_decision = d.decision
    FROM finding_ssvc_decisions d
   WHERE d.tenant_id = NEW.tenant_id AND d.asset_id = NEW.id AND NOT d.is_resolved AND d.decision <> d.kept
     AND v.id = d.id;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER assets_ssvc_decisions
  AFTER UPDATE OF criticality, internet_exposed ON assets FOR EACH ROW
  WHEN (OLD.criticality IS DISTINCT FROM NEW.criticality OR OLD.internet_exposed IS DISTINCT FROM NEW.internet_exposed)
  EXECUTE FUNCTION asset_ssvc_decisions();
--> statement-breakpoint
-- A tenant's new EPSS threshold moves its open, non-KEV findings whose CVE's score lies between the old threshold and
-- the new one, and only those. As the owner, confined to the settings' tenant, as above.
CREATE FUNCTION triage_settings_ssvc_decisions() RETURNS trigger
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = public, pg_temp
  AS $fn$
DECLARE
  before double precision := 0.1;
BEGIN
  IF TG_OP = 'UPDATE' THEN
    before := OLD.epss_threshold;
  END IF;
  IF before = NEW.epss_threshold THEN
    RETURN NULL;
  END IF;
  UPDATE vulnerabilities v SET ssvc_decision = d.decision
    FROM finding_ssvc_decisions d
   WHERE d.tenant_id = NEW.tenant_id AND NOT d.is_resolved AND NOT d.kev
     AND d.epss >= least(before, NEW.epss_threshold) AND d.epss < greatest(before, NEW.epss_threshold)
     AND d.decision <> d.kept AND v.id = d.id;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER triage_settings_ssvc_decisions
  AFTER INSERT OR UPDATE OF epss_threshold ON triage_settings FOR EACH ROW
  EXECUTE FUNCTION triage_settings_ssvc_decisions();
