import type { TaskDefinition } from './types.ts';

// Not built yet: scan report processing (issue 6, scans).
export const scanTasks: TaskDefinition[] = [];
