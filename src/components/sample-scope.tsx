import { createContext, useContext, type ReactNode } from 'react';
import type { DataOrigin } from '../lib/api-client.ts';
import { useSamplePresence } from '../lib/sample-presence.ts';

const SampleContext = createContext(false);

/** True inside a SampleScope whose data is sample data. */
export function useIsSample(): boolean {
  return useContext(SampleContext);
}

/**
 * Wraps what shows one answer: sample data is drawn apart (hatched tiles, greyed charts: `.sample-scope` in the
 * global styles), its figures carry « exemple », and the layout's banner stays up while it is on screen.
 */
export function SampleScope({
  origin,
  children,
  className,
}: {
  origin: DataOrigin | undefined;
  children: ReactNode;
  className?: string;
}) {
  const sample = origin?.source === 'sample';
  useSamplePresence(sample);
  const classes = [className, sample ? 'sample-scope' : ''].filter(Boolean).join(' ');
  return (
    <SampleContext.Provider value={sample}>
      <div className={classes || undefined} data-sample={sample ? 'true' : undefined}>
        {children}
      </div>
    </SampleContext.Provider>
  );
}

/** A headline figure: inside a sample scope it always carries the « exemple » mark beside it, on its line. */
export function Figure({ children, testId }: { children: ReactNode; testId?: string }) {
  const sample = useIsSample();
  const figure = (
    <strong data-testid={testId} data-figure="">
      {children}
    </strong>
  );
  if (!sample) return figure;
  return (
    <span className="figure-line">
      {figure}
      <span className="sample-mark" data-sample-mark="">
        exemple
      </span>
    </span>
  );
}
