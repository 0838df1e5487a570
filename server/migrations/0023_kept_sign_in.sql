-- Issue 19: each process keeps the signed-in state (users, sessions, memberships, tenants) and the data versions
-- (tenant_writes, migration 0019) in memory under a crowd, so a kept answer costs no round trip. It hears every change
-- of them here, sent when the change commits: a user's id on vigie_signed_in ('*': everybody), and each tenant's new
-- version on vigie_writes ('*': forget them all). Statement-level: one notice per statement and tenant or user.
CREATE FUNCTION notify_signed_in() RETURNS trigger
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = public, pg_temp
  AS $fn$
DECLARE
  ids text;
BEGIN
  IF TG_TABLE_NAME = 'tenants' THEN
    ids := '*';
  ELSIF TG_TABLE_NAME = 'users' THEN
    IF TG_OP = 'DELETE' THEN
      SELECT string_agg(DISTINCT id::text, ',') INTO ids FROM old_rows;
    ELSE
      SELECT string_agg(DISTINCT id::text, ',') INTO ids FROM new_rows;
    END IF;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT string_agg(DISTINCT user_id::text, ',') INTO ids FROM old_rows;
  ELSE
    SELECT string_agg(DISTINCT user_id::text, ',') INTO ids FROM new_rows;
  END IF;
  IF ids IS NOT NULL THEN
    -- A notice carries 8000 bytes at most: a statement touching that many users says everybody.
    PERFORM pg_notify('vigie_signed_in', CASE WHEN length(ids) > 7000 THEN '*' ELSE ids END);
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE FUNCTION notify_tenant_writes() RETURNS trigger
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = public, pg_temp
  AS $fn$
DECLARE
  versions text;
BEGIN
  SELECT string_agg(tenant_id::text || ':' || top::text, ',') INTO versions
    FROM (SELECT tenant_id, max(seq) AS top FROM new_rows GROUP BY tenant_id) newest;
  IF versions IS NOT NULL THEN
    PERFORM pg_notify('vigie_writes', CASE WHEN length(versions) > 7000 THEN '*' ELSE versions END);
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER tenant_writes_notify AFTER INSERT ON tenant_writes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_tenant_writes();
--> statement-breakpoint
CREATE TRIGGER users_signed_in_update AFTER UPDATE ON users
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_signed_in();
--> statement-breakpoint
CREATE TRIGGER users_signed_in_delete AFTER DELETE ON users
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_signed_in();
--> statement-breakpoint
CREATE TRIGGER refresh_tokens_signed_in_insert AFTER INSERT ON refresh_tokens
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_signed_in();
--> statement-breakpoint
CREATE TRIGGER refresh_tokens_signed_in_update AFTER UPDATE ON refresh_tokens
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_signed_in();
--> statement-breakpoint
CREATE TRIGGER refresh_tokens_signed_in_delete AFTER DELETE ON refresh_tokens
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_signed_in();
--> statement-breakpoint
CREATE TRIGGER memberships_signed_in_insert AFTER INSERT ON memberships
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_signed_in();
--> statement-breakpoint
CREATE TRIGGER memberships_signed_in_update AFTER UPDATE ON memberships
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_signed_in();
--> statement-breakpoint
CREATE TRIGGER memberships_signed_in_delete AFTER DELETE ON memberships
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_signed_in();
--> statement-breakpoint
CREATE TRIGGER tenants_signed_in_update AFTER UPDATE ON tenants
  FOR EACH STATEMENT EXECUTE FUNCTION notify_signed_in();
--> statement-breakpoint
CREATE TRIGGER tenants_signed_in_delete AFTER DELETE ON tenants
  FOR EACH STATEMENT EXECUTE FUNCTION notify_signed_in();
