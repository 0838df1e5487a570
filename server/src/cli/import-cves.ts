import { configuredSources, importSources, ImportError } from '../importers/index.ts';
import { summarizeImport } from '../tasks/cve-tasks.ts';
import { notifierOf } from '../services/notifier.ts';
import { withDatabase } from './with-database.ts';

// `npm run cve:import -- [sources…]`: files, folders or URLs; default VIGIE_CVE_SOURCES, else seed-data/.
const sources = process.argv.slice(2).length > 0 ? process.argv.slice(2) : configuredSources();
const controller = new AbortController();
process.once('SIGINT', () => controller.abort(new Error('import interrompu (SIGINT)')));
let lastLine = 0;
await withDatabase(async (database) => {
  try {
    console.log(`vigie: importing CVE data from ${sources.join(', ')} (${database.kind})`);
    const counts = await importSources(database.db, sources, {
      signal: controller.signal,
      onNewlyExploited: (cveIds) => notifierOf(database).kevMatches(cveIds),
      onProgress: ({ processed, percent }) => {
        if (!process.stdout.isTTY || performance.now() - lastLine < 500) return;
        lastLine = performance.now();
        process.stdout.write(`\r  ${processed} records${percent !== undefined ? ` (${percent.toFixed(1)} %)` : ''}   `);
      },
    });
    if (process.stdout.isTTY) process.stdout.write('\n');
    for (const f of counts.files) {
      const what = f.kind === 'cwe' ? `${f.cwes ?? 0} CWE` : `${f.processed} records`;
      console.log(
        `  ${f.source} [${f.kind}]: ${what}, ${f.new_cves} new, ${f.updated_cves} updated, ${f.unchanged} unchanged, ` +
          `${f.errors} errors (${(f.duration_ms / 1000).toFixed(1)} s)`,
      );
    }
    for (const sample of counts.error_samples) console.log(`  ! ${sample}`);
    if (counts.skipped.length > 0) console.log(`  skipped (not CVE data): ${counts.skipped.length} files`);
    const seconds = counts.duration_ms / 1000;
    const rate = seconds > 0 ? Math.round(counts.processed / seconds) : counts.processed;
    console.log(`vigie: ${summarizeImport(counts)} in ${seconds.toFixed(1)} s (${rate} records/s)`);
  } catch (err) {
    if (err instanceof ImportError || controller.signal.aborted) {
      console.error(`vigie: ${(err as Error).message}`);
      process.exitCode = 1;
    } else {
      throw err;
    }
  } finally {
    await notifierOf(database).close();
  }
});
