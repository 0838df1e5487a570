import { useEffect, useRef, useState } from 'react';
import type { UploadProgress } from './upload.ts';

/** One file upload at a time from a form: its progress (0–100, null when unknown) and its cancel. */
export function useUpload() {
  const [progress, setProgress] = useState<number | null>(null);
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  /** Runs `send` with a signal and a progress callback; leaving the screen cancels it. */
  async function run<T>(
    send: (opts: { signal: AbortSignal; onProgress: (p: UploadProgress) => void }) => Promise<T>,
  ): Promise<T> {
    const ac = new AbortController();
    controller.current = ac;
    setProgress(0);
    try {
      return await send({ signal: ac.signal, onProgress: (p) => setProgress(p.percent) });
    } finally {
      controller.current = null;
      setProgress(null);
    }
  }

  return { progress, run, cancel: () => controller.current?.abort() };
}
