DROP INDEX "vulnerabilities_tenant_updated_idx";--> statement-breakpoint
DROP INDEX "vulnerabilities_tenant_last_seen_idx";--> statement-breakpoint
DROP INDEX "vulnerabilities_tenant_title_idx";--> statement-breakpoint
DROP INDEX "vulnerabilities_tenant_severity_rank_idx";--> statement-breakpoint
DROP INDEX "vulnerabilities_tenant_cvss_idx";--> statement-breakpoint
DROP INDEX "vulnerabilities_tenant_cvss_desc_idx";--> statement-breakpoint
DROP INDEX "vulnerabilities_tenant_cve_desc_idx";--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_id_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_created_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","created_at","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_updated_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","updated_at","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_last_seen_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","last_seen","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_title_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","title","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_cvss_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","cvss_score","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_cvss_desc_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","cvss_score" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_cve_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","cve_id","id");--> statement-breakpoint
CREATE INDEX "vulnerabilities_cell_cve_desc_idx" ON "vulnerabilities" USING btree ("tenant_id","severity","is_resolved","kev","cve_id" DESC NULLS LAST,"id" DESC NULLS LAST);