import { signal } from '@preact/signals-react';

// Stands in for src/app/update-prompt.ts, whose PWA plugin virtual module exists only in a Vite build:
// vi.mock('../../src/app/update-prompt.ts', () => import('./support/update-prompt-stub.ts'));

export const updateAvailable = signal(false);
export const reloadToUpdate = () => {};
