import { useEffect, useRef, useState } from 'react';
import { DownloadError, type DownloadProgress } from './download.ts';
import { messageOf } from './error-message.ts';

export type DownloadOutcome = 'done' | 'cancelled' | 'failed' | 'replaced';

/**
 * One file download at a time on a screen, with its progress (a percentage when the file's size is known), its
 * cancel and its French error; leaving the screen cancels it.
 */
export function useDownload() {
  const [running, setRunning] = useState<{ id: string; percent: number | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  /** Runs `download` for the file `id` of `size` bytes; resolves how it ended (`replaced`: another one started). */
  async function start(
    id: string | number,
    size: number | null | undefined,
    download: (opts: { signal: AbortSignal; onProgress: (p: DownloadProgress) => void }) => Promise<unknown>,
  ): Promise<DownloadOutcome> {
    controller.current?.abort();
    const ac = new AbortController();
    controller.current = ac;
    const key = String(id);
    const percent = (bytes: number) => (size ? Math.min(100, Math.round((bytes / size) * 100)) : null);
    setError(null);
    setRunning({ id: key, percent: percent(0) });
    try {
      await download({ signal: ac.signal, onProgress: (p) => setRunning({ id: key, percent: percent(p.bytes) }) });
      if (controller.current !== ac) return 'replaced';
      return 'done';
    } catch (err) {
      if (controller.current !== ac) return 'replaced';
      if (err instanceof DownloadError && err.aborted) return 'cancelled';
      setError(messageOf(err));
      return 'failed';
    } finally {
      if (controller.current === ac) {
        controller.current = null;
        setRunning(null);
      }
    }
  }

  return { running, error, start, cancel: () => controller.current?.abort() };
}
