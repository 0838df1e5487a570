import './styles/global.css';
import { bootTheme } from './lib/theme-boot.ts';

// The stored theme before the first paint of the frame's colours (a dark wall screen does not flash white).
bootTheme();

/**
 * The entry. index.html has painted the app's frame; the app then starts in steps, each in a task of its own (React's
 * code, then the app's), so that on a slow phone no single task keeps the page from answering input for long. Both
 * are preloaded from index.html (vite.config.ts), so the steps wait on no network.
 */
const nextTask = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

void import('react-dom/client')
  .then(nextTask)
  .then(() => import('./app/start.tsx'))
  .then(({ start }) => start());
