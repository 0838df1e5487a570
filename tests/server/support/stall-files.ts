/**
 * A test-only preload for a spawned server (`node --import tsx --import <this file> server/src/server.ts`): the
 * files whose path matches the regular expression in VIGIE_TEST_STALL_FILES never finish reading (fs.promises
 * .readFile, or a fs.createReadStream that never gives a byte) or writing (fs.createWriteStream: the file is created, then no write completes). A task touching such a
 * file hangs mid-way, so the test can kill the process at that point. Nothing of the server imports it.
 */
import fs, { type PathLike } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { Readable, Writable } from 'node:stream';

const pattern = process.env.VIGIE_TEST_STALL_FILES;

if (pattern) {
  const stalls = (file: unknown) => new RegExp(pattern).test(String(file));
  const readFile = fs.promises.readFile;
  const createWriteStream = fs.createWriteStream;
  const createReadStream = fs.createReadStream;

  fs.promises.readFile = ((file: PathLike, ...rest: unknown[]) =>
    stalls(file)
      ? new Promise(() => {})
      : (readFile as (...args: unknown[]) => Promise<unknown>)(file, ...rest)) as typeof readFile;

  fs.createWriteStream = ((file: PathLike, options?: Parameters<typeof createWriteStream>[1]) => {
    const real = createWriteStream(file, options);
    if (!stalls(file)) return real;
    // The file exists (opened by the real stream); what is written never lands.
    return new Writable({ write: () => {} });
  }) as typeof createWriteStream;

  // Report parsers stream their file (scan-reports/source.ts): a stream that never gives a byte hangs them the same way.
  fs.createReadStream = ((file: PathLike, options?: Parameters<typeof createReadStream>[1]) =>
    stalls(file) ? new Readable({ read: () => {} }) : createReadStream(file, options)) as typeof createReadStream;

  // `import { readFile } from 'node:fs/promises'` and the like see the replacements too.
  syncBuiltinESMExports();
}
