-- Issue 18: the data version the dashboards' cached answers are checked against. Every write statement on a table a
-- dashboard reads files one row per tenant it touched (platform rows: the nil UUID); a tenant's version is the largest
-- seq of its rows. Inserts only: concurrent writers never wait on a shared row (no lock, no deadlock), and a reader
-- sees a new version exactly when the write commits.
CREATE SEQUENCE "tenant_writes_seq";
--> statement-breakpoint
CREATE TABLE "tenant_writes" (
	"tenant_id" uuid NOT NULL,
	"seq" bigint DEFAULT nextval('tenant_writes_seq') NOT NULL,
	CONSTRAINT "tenant_writes_tenant_id_seq_pk" PRIMARY KEY("tenant_id","seq")
);
--> statement-breakpoint
CREATE FUNCTION note_tenant_write() RETURNS trigger
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = public, pg_temp
  AS $fn$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO tenant_writes (tenant_id) SELECT DISTINCT coalesce(tenant_id, '00000000-0000-0000-0000-000000000000'::uuid) FROM old_rows;
  ELSE
    INSERT INTO tenant_writes (tenant_id) SELECT DISTINCT coalesce(tenant_id, '00000000-0000-0000-0000-000000000000'::uuid) FROM new_rows;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE FUNCTION note_platform_write() RETURNS trigger
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = public, pg_temp
  AS $fn$
BEGIN
  INSERT INTO tenant_writes (tenant_id) VALUES ('00000000-0000-0000-0000-000000000000'::uuid);
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
-- The current tenant's version, and the platform's too when the answer shows platform rows (task runs, CWE names).
CREATE FUNCTION tenant_data_version(with_platform boolean) RETURNS bigint
  LANGUAGE sql
  STABLE
  SECURITY DEFINER
  SET search_path = public, pg_temp
  AS $fn$
  SELECT greatest(
    (SELECT max(seq) FROM tenant_writes WHERE tenant_id = app_current_tenant()),
    CASE WHEN with_platform THEN (SELECT max(seq) FROM tenant_writes WHERE tenant_id = '00000000-0000-0000-0000-000000000000'::uuid) END,
    0
  )
$fn$;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION tenant_data_version(boolean) TO vigie_app;
--> statement-breakpoint
CREATE TRIGGER vulnerabilities_writes_insert AFTER INSERT ON vulnerabilities
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER vulnerabilities_writes_update AFTER UPDATE ON vulnerabilities
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER vulnerabilities_writes_delete AFTER DELETE ON vulnerabilities
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER assets_writes_insert AFTER INSERT ON assets
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER assets_writes_update AFTER UPDATE ON assets
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER assets_writes_delete AFTER DELETE ON assets
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER scans_writes_insert AFTER INSERT ON scans
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER scans_writes_update AFTER UPDATE ON scans
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER scans_writes_delete AFTER DELETE ON scans
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER threats_writes_insert AFTER INSERT ON threats
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER threats_writes_update AFTER UPDATE ON threats
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER threats_writes_delete AFTER DELETE ON threats
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER projects_writes_insert AFTER INSERT ON projects
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER projects_writes_update AFTER UPDATE ON projects
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER projects_writes_delete AFTER DELETE ON projects
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_members_writes_insert AFTER INSERT ON project_members
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_members_writes_update AFTER UPDATE ON project_members
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_members_writes_delete AFTER DELETE ON project_members
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_assets_writes_insert AFTER INSERT ON project_assets
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_assets_writes_update AFTER UPDATE ON project_assets
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_assets_writes_delete AFTER DELETE ON project_assets
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_vulnerabilities_writes_insert AFTER INSERT ON project_vulnerabilities
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_vulnerabilities_writes_update AFTER UPDATE ON project_vulnerabilities
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_vulnerabilities_writes_delete AFTER DELETE ON project_vulnerabilities
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_threats_writes_insert AFTER INSERT ON project_threats
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_threats_writes_update AFTER UPDATE ON project_threats
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_threats_writes_delete AFTER DELETE ON project_threats
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_activity_writes_insert AFTER INSERT ON project_activity
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_activity_writes_update AFTER UPDATE ON project_activity
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_activity_writes_delete AFTER DELETE ON project_activity
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER risks_writes_insert AFTER INSERT ON risks
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER risks_writes_update AFTER UPDATE ON risks
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER risks_writes_delete AFTER DELETE ON risks
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER remediation_plans_writes_insert AFTER INSERT ON remediation_plans
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER remediation_plans_writes_update AFTER UPDATE ON remediation_plans
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER remediation_plans_writes_delete AFTER DELETE ON remediation_plans
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER corrective_actions_writes_insert AFTER INSERT ON corrective_actions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER corrective_actions_writes_update AFTER UPDATE ON corrective_actions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER corrective_actions_writes_delete AFTER DELETE ON corrective_actions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_tasks_writes_insert AFTER INSERT ON project_tasks
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_tasks_writes_update AFTER UPDATE ON project_tasks
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_tasks_writes_delete AFTER DELETE ON project_tasks
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_documents_writes_insert AFTER INSERT ON project_documents
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_documents_writes_update AFTER UPDATE ON project_documents
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER project_documents_writes_delete AFTER DELETE ON project_documents
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER task_runs_writes_insert AFTER INSERT ON task_runs
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER task_runs_writes_update AFTER UPDATE ON task_runs
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER task_runs_writes_delete AFTER DELETE ON task_runs
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION note_tenant_write();
--> statement-breakpoint
CREATE TRIGGER cwes_writes AFTER INSERT OR UPDATE OR DELETE ON cwes FOR EACH STATEMENT EXECUTE FUNCTION note_platform_write();
--> statement-breakpoint
-- Read through tenant_data_version() only (the tenant role has no grant); confined all the same, as every table with
-- a tenant_id is.
ALTER TABLE tenant_writes ENABLE ROW LEVEL SECURITY;
--> statement-breakpoint
CREATE POLICY tenant_isolation ON tenant_writes
  USING (tenant_id = app_current_tenant());
