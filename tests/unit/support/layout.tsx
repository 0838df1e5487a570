import { Layout } from '../../../src/app/layout.tsx';
import type { Screen } from '../screen-helpers.tsx';

/**
 * Renders the app layout around a placeholder page, then lets it settle. The test file mocks the update prompt
 * (see update-prompt-stub.ts).
 */
export function renderLayout(screen: Screen) {
  return screen.render(
    <Layout>
      <p>contenu</p>
    </Layout>,
  );
}
