import { useEffect, useRef, useState } from 'react';
import type { Chart, ChartConfiguration } from 'chart.js';
import type * as ChartSetup from './chart-setup.ts';
import { readPalette, type ChartPalette, type ChartTheme } from './palette.ts';

export type BuildConfig = (palette: ChartPalette, reducedMotion: boolean) => ChartConfiguration;

let loader: Promise<typeof ChartSetup> | undefined;

/** chart.js is fetched the first time a chart is drawn, never with the first paint. */
function loadChartJs(): Promise<typeof ChartSetup> {
  loader ??= import('./chart-setup.ts').catch((err: unknown) => {
    loader = undefined; // offline without the chunk: try again next time
    throw err;
  });
  return loader;
}

let canvasSupport: boolean | undefined;

/** False where no 2D context exists (old engines, happy-dom): the charts then show their table only. */
export function canvasSupported(): boolean {
  if (canvasSupport === undefined) {
    try {
      canvasSupport = typeof document !== 'undefined' && !!document.createElement('canvas').getContext('2d');
    } catch {
      canvasSupport = false;
    }
  }
  return canvasSupport;
}

/**
 * Calls `onNear` once `el` comes within a screen's margin of the viewport (at once without IntersectionObserver):
 * a chart below the fold costs nothing during the page load. Returns the canceller.
 */
function whenNearViewport(el: Element, onNear: () => void): () => void {
  if (typeof IntersectionObserver === 'undefined') {
    onNear();
    return () => {};
  }
  const observer = new IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.disconnect();
      onNear();
    },
    { rootMargin: '200px' },
  );
  observer.observe(el);
  return () => observer.disconnect();
}

/** A task of its own: charts ready together are drawn one per task, never as one long task. */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function prefersReducedMotion(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/**
 * Draws a chart.js chart in `canvasRef` once chart.js is loaded, updates it in place when `key` changes (the
 * serialised inputs), destroys it on unmount. `drawn` is false until then, and stays false without canvas support.
 */
export function useChart(build: BuildConfig, key: string, theme: ChartTheme) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const figureRef = useRef<HTMLElement>(null);
  const chartRef = useRef<Chart | null>(null);
  const buildRef = useRef(build);
  const themeRef = useRef(theme);
  const [supported] = useState(canvasSupported);
  const [drawn, setDrawn] = useState(false);

  useEffect(() => {
    buildRef.current = build;
    themeRef.current = theme;
  });

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!supported || !canvas) return;
    let cancelled = false;
    let stopWatching = () => {};
    const near = new Promise<void>((resolve) => (stopWatching = whenNearViewport(canvas, resolve)));
    Promise.all([loadChartJs(), near]).then(
      async ([{ Chart }]) => {
        await nextTask();
        if (cancelled) return;
        const config = buildRef.current(readPalette(figureRef.current, themeRef.current), prefersReducedMotion());
        chartRef.current = new Chart(canvas, config);
        setDrawn(true);
      },
      () => {
        /* the table stays the only rendering */
      },
    );
    return () => {
      cancelled = true;
      stopWatching();
      chartRef.current?.destroy();
      chartRef.current = null;
    };
  }, [supported]);

  useEffect(() => {
    const chart = chartRef.current;
    if (!chart) return;
    const next = buildRef.current(readPalette(figureRef.current, theme), prefersReducedMotion());
    chart.data.labels = next.data.labels ?? [];
    next.data.datasets.forEach((ds, i) => {
      const current = chart.data.datasets[i];
      if (current) Object.assign(current, ds);
      else chart.data.datasets.push(ds);
    });
    chart.data.datasets.length = next.data.datasets.length;
    chart.options = next.options ?? {};
    chart.update();
  }, [key, theme]);

  return { canvasRef, figureRef, supported, drawn };
}
