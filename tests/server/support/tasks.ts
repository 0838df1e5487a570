import type { TaskDefinition } from '../../../server/src/tasks/types.ts';

/** What a test task may set besides its name, labels and run: a platform task with the default retries unless told. */
export type TestTaskOptions = Partial<Omit<TaskDefinition, 'name' | 'label' | 'description' | 'run'>>;

/** A task the suites register in their test app (`tasks` option). */
export function testTask(
  name: string,
  label: string,
  description: string,
  run: TaskDefinition['run'],
  opts: TestTaskOptions = {},
): TaskDefinition {
  return { name, label, description, scope: 'platform', run, ...opts };
}
