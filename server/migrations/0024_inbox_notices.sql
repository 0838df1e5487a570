-- Issue 19: each process keeps its users' notification lists in memory under a crowd (services/kept-sign-in.ts) and
-- forgets a user's as soon as any of their notifications is written, read or deleted: the user's id on vigie_inbox.
CREATE FUNCTION notify_inbox() RETURNS trigger
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = public, pg_temp
  AS $fn$
DECLARE
  ids text;
BEGIN
  IF TG_OP = 'DELETE' THEN
    SELECT string_agg(DISTINCT user_id::text, ',') INTO ids FROM old_rows;
  ELSE
    SELECT string_agg(DISTINCT user_id::text, ',') INTO ids FROM new_rows;
  END IF;
  IF ids IS NOT NULL THEN
    PERFORM pg_notify('vigie_inbox', CASE WHEN length(ids) > 7000 THEN '*' ELSE ids END);
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER notifications_inbox_insert AFTER INSERT ON notifications
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_inbox();
--> statement-breakpoint
CREATE TRIGGER notifications_inbox_update AFTER UPDATE ON notifications
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_inbox();
--> statement-breakpoint
CREATE TRIGGER notifications_inbox_delete AFTER DELETE ON notifications
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_inbox();
