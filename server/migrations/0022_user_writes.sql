-- Issue 19: the projects list is kept under its tenant's data version (migration 0019), and it shows its owners' and
-- members' names and e-mail addresses, which live on users (no tenant of their own). A change to those columns is a
-- write of every tenant the user belongs to. Not the last sign-in (a sign-in is no data change: it would drop every
-- kept dashboard of the user's tenants); the list is kept 30 s at most for it. Row-level (column lists take no
-- transition tables); names change rarely.
CREATE FUNCTION note_user_write() RETURNS trigger
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = public, pg_temp
  AS $fn$
BEGIN
  INSERT INTO tenant_writes (tenant_id) SELECT tenant_id FROM memberships WHERE user_id = NEW.id;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER users_writes_update AFTER UPDATE OF username, first_name, last_name, email ON users
  FOR EACH ROW
  WHEN (OLD.username IS DISTINCT FROM NEW.username OR OLD.first_name IS DISTINCT FROM NEW.first_name
    OR OLD.last_name IS DISTINCT FROM NEW.last_name OR OLD.email IS DISTINCT FROM NEW.email)
  EXECUTE FUNCTION note_user_write();
