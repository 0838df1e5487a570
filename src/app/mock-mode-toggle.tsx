import { useState } from 'react';
import { useSignals } from '@preact/signals-react/runtime';
import { recordUiAction } from '../lib/audit-log.ts';
import { mockApiMode, setMockMode } from './modes.ts';

/** spec §1: the mock API mode switch, with its alert message on each change. */
export function MockModeToggle() {
  useSignals();
  const [message, setMessage] = useState<string | null>(null);
  return (
    <div className="mock-toggle">
      <label>
        <input
          type="checkbox"
          checked={mockApiMode.value}
          onChange={(e) => {
            const enabled = e.target.checked;
            recordUiAction('mock_api_mode', { enabled });
            void setMockMode(enabled).then(setMessage);
          }}
        />{' '}
        Mode API simulée
      </label>
      {message && (
        <span role="alert" className="mock-message">
          {message}
        </span>
      )}
    </div>
  );
}
