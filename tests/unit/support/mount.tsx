import { act, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach } from 'vitest';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** A React root in a fresh container of the document, for the current test. */
export interface Mounted {
  readonly container: HTMLDivElement;
  readonly root: Root;
  /** Renders `node` into the root, inside act. */
  render(node: ReactNode): void;
  /** Unmounts the root, as leaving the screen does, and puts a fresh one in its place. */
  unmount(): void;
}

/**
 * Registers the hooks that mount a fresh root in the document before each test and unmount and remove it after.
 * Call it after the file's own beforeEach/afterEach: its root is then made after their set-up and unmounted before
 * their tear-down (after-hooks run in the reverse order).
 */
export function mountEachTest(): Mounted {
  let current: { container: HTMLDivElement; root: Root } | undefined;
  const live = () => {
    if (!current) throw new Error('the root is mounted from beforeEach to afterEach');
    return current;
  };
  beforeEach(() => {
    const container = document.createElement('div');
    document.body.append(container);
    current = { container, root: createRoot(container) };
  });
  afterEach(() => {
    const { container, root } = live();
    act(() => root.unmount());
    container.remove();
    current = undefined;
  });
  return {
    get container() {
      return live().container;
    },
    get root() {
      return live().root;
    },
    render: (node) => act(() => live().root.render(node)),
    unmount() {
      const mounted = live();
      act(() => mounted.root.unmount());
      mounted.root = createRoot(mounted.container);
    },
  };
}
