-- Issue 18: the first list pages are kept under the data version too, and they show the CVE store's EPSS scores, so a
-- write on cves (a CVE update, an EPSS import) files a platform write as the CWE names do.
CREATE TRIGGER cves_writes AFTER INSERT OR UPDATE OR DELETE ON cves FOR EACH STATEMENT EXECUTE FUNCTION note_platform_write();
