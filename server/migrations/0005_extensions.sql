-- Extensions the later migrations rely on: trigram similarity for CVE and finding search.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
