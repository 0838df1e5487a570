import { describe, expect, it, vi } from 'vitest';
import { setupScreen } from './screen-helpers.tsx';
import { session } from '../../src/lib/auth/session.ts';
import { renderLayout } from './support/layout.tsx';
import indexHtml from '../../index.html?raw';

// The layout's update prompt needs the PWA plugin's virtual module, absent here.
vi.mock('../../src/app/update-prompt.ts', () => import('./support/update-prompt-stub.ts'));

const screen = setupScreen();

/** The frame index.html paints before the script runs. */
function staticShell(): Document {
  return new DOMParser().parseFromString(indexHtml, 'text/html');
}

const squash = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();

describe('the first paint (index.html) is the layout React then renders', () => {
  it('has the same brand and footer text as the layout, so the swap does not show', async () => {
    session.value = null;
    await renderLayout(screen);
    const shell = staticShell();
    const brand = (root: ParentNode) => root.querySelector('header.topbar a.brand');
    expect(brand(shell)?.getAttribute('aria-label')).toBe(brand(screen.container)?.getAttribute('aria-label'));
    expect(squash(brand(shell)?.textContent)).toBe(squash(brand(screen.container)?.textContent));
    const notice = (root: ParentNode) => root.querySelector('footer.footer .data-notice');
    expect(squash(notice(shell)?.textContent)).toContain('NVD API');
    expect(squash(notice(shell)?.textContent)).toBe(squash(notice(screen.container)?.textContent));
    expect(squash(shell.querySelector('footer.footer > span')?.textContent)).toBe(
      squash(screen.container.querySelector('footer.footer > span')?.textContent),
    );
  });

  it('holds no inline script or style (the Content-Security-Policy allows neither)', () => {
    const shell = staticShell();
    expect(shell.querySelectorAll('script:not([src]), style, [style]')).toHaveLength(0);
  });
});
