-- Findings at scale (issue 6): per-tenant counters kept by statement-level triggers, so the dashboard summary and
-- the list's count read a few hundred rows instead of counting a million; an ordering index with the id tiebreak;
-- and trigram search over the finding text.
DROP INDEX IF EXISTS vulnerabilities_tenant_created_idx;
--> statement-breakpoint
CREATE INDEX vulnerabilities_tenant_created_idx ON vulnerabilities USING btree (tenant_id, created_at, id);
--> statement-breakpoint
CREATE INDEX vulnerabilities_text_trgm_idx ON vulnerabilities
  USING gin ((coalesce(cve_id, '') || ' ' || title || ' ' || description) gin_trgm_ops);
--> statement-breakpoint
-- asset_id 0 stands for "no asset" (a key column cannot be null).
CREATE TABLE vulnerability_counts (
  tenant_id uuid NOT NULL,
  asset_id bigint NOT NULL DEFAULT 0,
  severity text NOT NULL,
  is_resolved boolean NOT NULL,
  kev boolean NOT NULL,
  n bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, asset_id, severity, is_resolved, kev)
);
--> statement-breakpoint
-- New findings per UTC day of created_at (the summary's trends).
CREATE TABLE vulnerability_daily_counts (
  tenant_id uuid NOT NULL,
  day date NOT NULL,
  severity text NOT NULL,
  is_resolved boolean NOT NULL,
  kev boolean NOT NULL,
  n bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, day, severity, is_resolved, kev)
);
--> statement-breakpoint
CREATE TABLE vulnerability_cwe_counts (
  tenant_id uuid NOT NULL,
  cwe_id text NOT NULL,
  severity text NOT NULL,
  is_resolved boolean NOT NULL,
  kev boolean NOT NULL,
  n bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, cwe_id, severity, is_resolved, kev)
);
--> statement-breakpoint
-- One function for the three events: the changed rows count +1 (new_rows) and -1 (old_rows), summed per key, so an
-- update that moves no key (a title edit, a scan deleted) writes nothing. Keys are written in sorted order so two
-- concurrent statements lock counter rows in the same order. It runs as the caller: vigie_app under row-level
-- security, whose changed rows are all in the current tenant. No foreign key to tenants: deleting a tenant cascades
-- to its findings, whose delete brings every counter to zero, and zero rows are removed.
CREATE FUNCTION vulnerabilities_maintain_counts() RETURNS trigger
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
  IF TG_OP = 'DELETE' THEN
    DELETE FROM vulnerability_counts WHERE n = 0 AND tenant_id IN (SELECT DISTINCT tenant_id FROM old_rows);
    DELETE FROM vulnerability_daily_counts WHERE n = 0 AND tenant_id IN (SELECT DISTINCT tenant_id FROM old_rows);
    DELETE FROM vulnerability_cwe_counts WHERE n = 0 AND tenant_id IN (SELECT DISTINCT tenant_id FROM old_rows);
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER vulnerabilities_counts_insert AFTER INSERT ON vulnerabilities
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vulnerabilities_maintain_counts();
--> statement-breakpoint
CREATE TRIGGER vulnerabilities_counts_update AFTER UPDATE ON vulnerabilities
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION vulnerabilities_maintain_counts();
--> statement-breakpoint
CREATE TRIGGER vulnerabilities_counts_delete AFTER DELETE ON vulnerabilities
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION vulnerabilities_maintain_counts();
--> statement-breakpoint
-- Counters of the findings already present (a database migrated with data).
INSERT INTO vulnerability_counts (tenant_id, asset_id, severity, is_resolved, kev, n)
  SELECT tenant_id, coalesce(asset_id, 0), severity, is_resolved, kev, count(*) FROM vulnerabilities GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
INSERT INTO vulnerability_daily_counts (tenant_id, day, severity, is_resolved, kev, n)
  SELECT tenant_id, (created_at AT TIME ZONE 'UTC')::date, severity, is_resolved, kev, count(*)
  FROM vulnerabilities GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
INSERT INTO vulnerability_cwe_counts (tenant_id, cwe_id, severity, is_resolved, kev, n)
  SELECT v.tenant_id, w.cwe_id, v.severity, v.is_resolved, v.kev, count(*)
  FROM vulnerabilities v CROSS JOIN LATERAL (SELECT DISTINCT u AS cwe_id FROM unnest(v.cwe_ids) u) w
  GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON vulnerability_counts, vulnerability_daily_counts, vulnerability_cwe_counts TO vigie_app;
--> statement-breakpoint
ALTER TABLE vulnerability_counts ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON vulnerability_counts
  USING (tenant_id = app_current_tenant())
  WITH CHECK (tenant_id = app_current_tenant());
--> statement-breakpoint
ALTER TABLE vulnerability_daily_counts ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON vulnerability_daily_counts
  USING (tenant_id = app_current_tenant())
  WITH CHECK (tenant_id = app_current_tenant());
--> statement-breakpoint
ALTER TABLE vulnerability_cwe_counts ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON vulnerability_cwe_counts
  USING (tenant_id = app_current_tenant())
  WITH CHECK (tenant_id = app_current_tenant());
--> statement-breakpoint
-- Row-level security keeps non-leakproof operators (ILIKE) out of index scans, so under vigie_app a text filter
-- would read every row of the tenant. This function runs as the table owner (no row-level security) but confines
-- itself to the current tenant, exactly what the policy would do, so the trigram index can be combined with the
-- (tenant, is_resolved, severity) index. It reveals nothing the caller could not already read. Dynamic SQL: each
-- call is planned for its own filters.
CREATE FUNCTION vulnerability_text_matches(
  pattern text,
  severities text[] DEFAULT NULL,
  resolved boolean DEFAULT NULL,
  only_kev boolean DEFAULT NULL
) RETURNS SETOF bigint
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  SET search_path = public, pg_temp
  ROWS 1000
  AS $fn$
BEGIN
  RETURN QUERY EXECUTE
    'SELECT id FROM vulnerabilities WHERE tenant_id = app_current_tenant()'
    || ' AND (coalesce(cve_id, '''') || '' '' || title || '' '' || description) ILIKE $1'
    || CASE WHEN severities IS NULL THEN '' ELSE ' AND severity = ANY ($2)' END
    || CASE WHEN resolved IS NULL THEN '' ELSE ' AND is_resolved = $3' END
    || CASE WHEN only_kev IS NULL THEN '' ELSE ' AND kev = $4' END
    USING pattern, severities, resolved, only_kev;
END
$fn$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION vulnerability_text_matches(text, text[], boolean, boolean) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION vulnerability_text_matches(text, text[], boolean, boolean) TO vigie_app;
