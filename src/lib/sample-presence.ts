import { signal } from '@preact/signals-react';
import { useEffect } from 'react';

/**
 * How many pieces of sample data are on screen now. The layout shows its full-width banner while any is, so
 * sample data is never on screen unannounced, whichever screen or panel shows it.
 */
export const samplesOnScreen = signal(0);

/** Counts this component in while `active` (its data is sample data). */
export function useSamplePresence(active: boolean): void {
  useEffect(() => {
    if (!active) return;
    samplesOnScreen.value += 1;
    return () => {
      samplesOnScreen.value -= 1;
    };
  }, [active]);
}

/** The banner's words (a test and the kiosk reuse them). */
export const SAMPLE_BANNER = 'Données d’exemple — ce ne sont pas les données de votre organisation';
