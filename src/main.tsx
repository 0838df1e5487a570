import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app.tsx';
import { registerServiceWorker } from './app/update-prompt.ts';
import { restoreSession } from './features/auth/session.ts';
import './styles/global.css';

const root = createRoot(document.getElementById('root')!);
// Render only once the session is known, so a signed-in reload never flashes the sign-in page.
void restoreSession().finally(() => {
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
});
registerServiceWorker();
