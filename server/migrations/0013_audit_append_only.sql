-- The audit trail is append-only (docs/api-audit.md § Append-only). The request role loses UPDATE and DELETE, and a
-- trigger refuses every UPDATE, DELETE and TRUNCATE for everyone, the owner included, except:
--   * the retention purge, audit_purge_expired(days), which deletes rows older than `days` days only;
--   * the foreign keys' own actions: a deleted account leaves its events with user_id null (the username stays),
--     a deleted tenant takes its trail with it.
REVOKE UPDATE, DELETE, TRUNCATE ON audit_events FROM vigie_app;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger
  LANGUAGE plpgsql
  SET search_path = public, pg_temp
  AS $$
DECLARE
  purge_days int;
BEGIN
  IF TG_OP = 'DELETE' THEN
    -- Set, transaction-local, by audit_purge_expired; the row's age is checked here too, so the flag alone
    -- deletes nothing recent.
    IF current_setting('vigie.audit_purge', true) = 'on' THEN
      purge_days := nullif(current_setting('vigie.audit_purge_days', true), '')::int;
      IF purge_days >= 1 AND OLD."timestamp" < now() - make_interval(days => purge_days) THEN
        RETURN OLD;
      END IF;
    END IF;
    -- ON DELETE CASCADE from tenants: the tenant row is already gone.
    IF OLD.tenant_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = OLD.tenant_id) THEN
      RETURN OLD;
    END IF;
  ELSIF TG_OP = 'UPDATE' THEN
    -- ON DELETE SET NULL from users: only user_id changes, and the account is already gone.
    IF OLD.user_id IS NOT NULL AND NEW.user_id IS NULL
      AND (to_jsonb(NEW) - 'user_id') = (to_jsonb(OLD) - 'user_id')
      AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = OLD.user_id) THEN
      RETURN NEW;
    END IF;
  END IF;
  RAISE EXCEPTION 'Le journal d''audit est en ajout seul : % interdit', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
CREATE TRIGGER audit_events_append_only
  BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
--> statement-breakpoint
CREATE TRIGGER audit_events_no_truncate
  BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
--> statement-breakpoint
-- The retention purge: owner rights, callable by the owner only (the background task), returns the rows removed.
CREATE OR REPLACE FUNCTION audit_purge_expired(days int) RETURNS bigint
  LANGUAGE plpgsql
  SECURITY DEFINER
  SET search_path = public, pg_temp
  AS $$
DECLARE
  removed bigint;
BEGIN
  IF days IS NULL OR days < 1 THEN
    RAISE EXCEPTION 'Durée de conservation invalide : au moins 1 jour.' USING ERRCODE = 'invalid_parameter_value';
  END IF;
  PERFORM set_config('vigie.audit_purge', 'on', true);
  PERFORM set_config('vigie.audit_purge_days', days::text, true);
  DELETE FROM audit_events WHERE "timestamp" < now() - days * interval '1 day';
  GET DIAGNOSTICS removed = ROW_COUNT;
  PERFORM set_config('vigie.audit_purge', '', true);
  PERFORM set_config('vigie.audit_purge_days', '', true);
  RETURN removed;
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION audit_purge_expired(int) FROM PUBLIC;
--> statement-breakpoint
-- The all-tenant view (newest first), the export's keyset and the purge walk the time; a tenant's event-type
-- filter keeps its time order.
CREATE INDEX audit_events_time_idx ON audit_events USING btree ("timestamp", "id");
--> statement-breakpoint
CREATE INDEX audit_events_tenant_type_time_idx ON audit_events USING btree ("tenant_id", "event_type", "timestamp");
