-- Issue 17: the data directory each process keeps its files in, so processes on another directory are refused.
ALTER TABLE "server_processes" ADD COLUMN "data_volume" text;