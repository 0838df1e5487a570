import { useState, type ReactNode } from 'react';
import { DataOriginNote } from '../../components/data-origin-note.tsx';
import { DeletableRowActions } from '../../components/confirm-delete.tsx';
import { ActionMessages, EmptyState } from '../../components/list-state.tsx';
import { useRowActions } from '../../components/use-row-actions.ts';
import { currentTenantId } from '../../lib/auth/session.ts';
import type { Form } from '../../lib/use-form.ts';
import { useResource, type Resource, type Sourced } from '../../lib/use-resource.ts';
import { emptyPage, type Written } from './project-http.ts';
import type { Id, Paged, Project } from './project-types.ts';

/** What every tab of the project page receives. */
export interface TabProps {
  project: Project;
  canEdit: boolean;
  canManage: boolean;
  /** Something changed that the project's header shows (completion, counts): read the project again. */
  onChanged: () => void;
}

/**
 * The state of the writes made from a tab: `act` runs one, marks its row busy, then shows the success notice, or
 * the service worker's "stored offline" message, or the French error.
 */
export function useProjectActions() {
  const { busy, notice, setNotice, actionError, run } = useRowActions<string>();
  async function act<T>(
    rowKey: string,
    call: () => Promise<Written<T>>,
    success: string,
    done?: (data: T | null) => void,
  ): Promise<boolean> {
    let ok = false;
    await run(rowKey, async () => {
      const result = await call();
      done?.(result.data);
      setNotice(result.queued ? result.message : success);
      ok = true;
    });
    return ok;
  }
  return { busy, notice, setNotice, actionError, act };
}

/** A project's data read in the current tenant, again whenever `deps` change. */
export function useProjectResource<T>(load: () => Promise<Sourced<T>>, deps: readonly unknown[]): Resource<T> {
  return useResource(load, [...deps, currentTenantId() ?? '']);
}

/**
 * A tab showing one of the project's lists: the list (read again with `deps`), the tab's writes, the row whose
 * deletion is being confirmed, and `changed` (read the list and the project's header again after a write).
 */
export function useTabList<T>(
  { project, onChanged }: Pick<TabProps, 'project' | 'onChanged'>,
  load: () => Promise<Sourced<Paged<T>>>,
  deps: readonly unknown[] = [],
) {
  const list = useProjectResource(load, [project.id, ...deps]);
  const actions = useProjectActions();
  const [confirming, setConfirming] = useState<Id | null>(null);
  const changed = () => {
    void list.refresh();
    onChanged();
  };
  /** Puts `fn(row)` in place of the row `id`. */
  const updateRow = (id: Id, fn: (row: T) => T) =>
    list.update((page) => ({
      ...page,
      results: page.results.map((row) => (String((row as { id: Id }).id) === String(id) ? fn(row) : row)),
    }));
  return { list, ...actions, confirming, setConfirming, changed, updateRow };
}

export type TabList<T> = ReturnType<typeof useTabList<T>>;

/** The head of a tab: its title and, for editors, the button opening its form. */
export function TabHead({ title, action, onAction }: { title: string; action?: string | false; onAction: () => void }) {
  return (
    <div className="vm-head">
      <h3>{title}</h3>
      {action && (
        <button type="button" className="btn primary" onClick={onAction}>
          {action}
        </button>
      )}
    </div>
  );
}

/** Where a list came from and, when it failed, its French error (the list itself shows empty). */
export function ListNotes({ resource }: { resource: Pick<Resource<unknown>, 'origin' | 'error'> }) {
  return (
    <>
      <DataOriginNote origin={resource.origin} />
      <ActionMessages error={resource.error} />
    </>
  );
}

/** The body of a tab: a loading status, or the list's origin, its error and the content (never blank). */
export function TabBody<T>({
  tab,
  loading,
  empty,
  children,
}: {
  tab: TabList<T>;
  loading: string;
  /** Shown in place of `children` when the list is empty. */
  empty?: ReactNode;
  children: (page: Paged<T>) => ReactNode;
}) {
  if (tab.list.loading) return <p role="status">{loading}</p>;
  const page = tab.list.data ?? emptyPage<T>();
  return (
    <>
      <ListNotes resource={tab.list} />
      {empty !== undefined && page.results.length === 0 ? <EmptyState>{empty}</EmptyState> : children(page)}
    </>
  );
}

/** A tab's messages: the last write's notice, or its error (or `error`, another failure of the tab). */
export function TabMessages({
  tab,
  error,
}: {
  tab: Pick<TabList<unknown>, 'notice' | 'actionError'>;
  error?: string | null;
}) {
  return <ActionMessages notice={tab.notice} error={tab.actionError ?? error} />;
}

/** How the rows of a tab are removed: the question asked in place, the write, and the notice once it is done. */
export interface Removal<T> {
  question: string;
  remove: (row: T) => Promise<Written<unknown>>;
  removed: (row: T) => string;
}

/**
 * The actions cell of a row that can be removed: its own actions, then « Supprimer » asking the removal's question
 * in place; a confirmed removal runs it, says so and reads the list again. `name` is the row's name for the buttons.
 */
export function RemovableRow<T extends { id: Id }>({
  tab,
  row,
  name,
  removal,
  children,
}: {
  tab: TabList<T>;
  row: T;
  name: string;
  removal: Removal<T>;
  children?: ReactNode;
}) {
  const { id } = row;
  return (
    <DeletableRowActions
      name={name}
      question={removal.question}
      confirming={tab.confirming === id}
      busy={tab.busy === `delete-${id}`}
      onAsk={() => tab.setConfirming(id)}
      onConfirm={() =>
        void tab.act(
          `delete-${id}`,
          () => removal.remove(row),
          removal.removed(row),
          () => {
            tab.setConfirming(null);
            tab.changed();
          },
        )
      }
      onCancel={() => tab.setConfirming(null)}
    >
      {children}
    </DeletableRowActions>
  );
}

function comparable(v: unknown): string | null {
  if (v === undefined || v === null || v === '') return null;
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** The fields of `after` that differ from `before` (ids compared as text, '' and null alike): a PATCH body. */
export function changedFields<T extends object>(before: object, after: T): Partial<T> {
  const out: Partial<T> = {};
  const old = before as Record<string, unknown>;
  for (const key of Object.keys(after) as (keyof T & string)[]) {
    if (comparable(after[key]) !== comparable(old[key])) out[key] = after[key];
  }
  return out;
}

/** The message shown when an edit form is sent without any change (nothing is sent). */
export const NO_CHANGE = 'Aucune modification à enregistrer.';

/**
 * An edit form's write: only the fields that changed go (PATCH); with no change the form says so and sends nothing.
 */
export async function saveChanges<T extends object, R>(
  form: Pick<Form<object>, 'setNotice'>,
  before: object,
  after: T,
  send: (changes: Partial<T>) => Promise<R>,
  onSaved: (result: R) => void,
): Promise<void> {
  const changes = changedFields(before, after);
  if (Object.keys(changes).length === 0) {
    form.setNotice(NO_CHANGE);
    return;
  }
  onSaved(await send(changes));
}
