// Loaded only through a dynamic import (see use-chart.ts): chart.js lands in its own lazily loaded chunk.
// Only the controllers, elements and plugins the three charts use are registered, so the rest is tree-shaken.
import * as chartJs from 'chart.js';

chartJs.Chart.register(
  chartJs.ArcElement,
  chartJs.BarController,
  chartJs.BarElement,
  chartJs.CategoryScale,
  chartJs.DoughnutController,
  chartJs.Filler,
  chartJs.LinearScale,
  chartJs.LineController,
  chartJs.LineElement,
  chartJs.PointElement,
  chartJs.Tooltip,
);

export { Chart } from 'chart.js';
