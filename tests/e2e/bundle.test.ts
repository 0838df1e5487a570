import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { initialJsGzipBytes } from '../../server/src/cli/build.ts';

/** Byte sizes of the build are deterministic: the first paint stays small, heavy code stays in lazy chunks. */
describe('the production bundle', () => {
  const dist = path.resolve('dist');
  const initial = initialJsGzipBytes(dist);
  const initialText = initial.files.map((f) => readFileSync(path.join(dist, f.replace(/^\//, '')), 'utf8')).join('\n');

  it('downloads at most 100 KiB of gzipped JavaScript before the first paint', () => {
    expect(initial.gzip).toBeGreaterThan(10_000);
    expect(initial.gzip).toBeLessThanOrEqual(100 * 1024);
  });

  it('starts in steps: a small entry, and React and the app preloaded from index.html in files of their own', () => {
    const [entry, ...preloaded] = initial.files;
    const text = (f: string) => readFileSync(path.join(dist, f.replace(/^\//, '')), 'utf8');
    // The entry imports React, then the app, a task apart (src/main.ts): neither is in it.
    expect(text(entry!).length).toBeLessThan(8 * 1024);
    expect(text(entry!)).not.toContain('Mot de passe oublié');
    // Both come preloaded, so the steps wait on no network: React's root, and the app with its sign-in page.
    expect(preloaded.some((f) => text(f).includes('createRoot') && !text(f).includes('Mot de passe oublié'))).toBe(
      true,
    );
    expect(preloaded.some((f) => text(f).includes('Mot de passe oublié'))).toBe(true);
  });

  it('keeps chart.js and the virtualised list out of the initial files, in chunks of their own', () => {
    // chart.js's registry API and react-virtual's measuring code, as they appear in the minified output.
    expect(initialText).not.toContain('getChart');
    expect(initialText).not.toContain('measureElement');
    const lazy = readdirSync(path.join(dist, 'assets')).filter((f) => f.endsWith('.js'));
    const texts = lazy.map((f) => readFileSync(path.join(dist, 'assets', f), 'utf8'));
    expect(texts.some((t) => t.includes('getChart'))).toBe(true);
    expect(texts.some((t) => t.includes('measureElement'))).toBe(true);
  });
});
