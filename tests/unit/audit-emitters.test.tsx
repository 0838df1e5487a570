import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDB } from 'idb';
import { useLocation } from 'wouter';
import { navigate } from 'wouter/use-browser-location';
import { json, settle, setupScreen, signIn } from './screen-helpers.tsx';
import { AuditBuffer, type AuditEvent } from '../../src/features/audit/audit-buffer.ts';
import { audit, connectAuditLog } from '../../src/app/audit.ts';
import { RouteAudit } from '../../src/app/route-audit.tsx';
import { MockModeToggle } from '../../src/app/mock-mode-toggle.tsx';
import { LoginPage } from '../../src/features/auth/login-page.tsx';
import TasksPage from '../../src/features/tasks/tasks-page.tsx';
import { ExportControls } from '../../src/components/export-controls.tsx';
import { ConfirmDelete } from '../../src/components/confirm-delete.tsx';
import { useCanWrite } from '../../src/lib/auth/can-write.ts';
import { isAdministrator } from '../../src/lib/auth/admin-access.ts';
import { session } from '../../src/lib/auth/session.ts';
import { mockApiMode } from '../../src/app/modes.ts';
import { recordUiAction, setAuditLogSink } from '../../src/lib/audit-log.ts';

const screen = setupScreen();

let buffer: AuditBuffer;
let dbName: string;
let pending: Promise<unknown>[];
let disconnect: () => void;
let n = 0;

beforeEach(() => {
  dbName = `audit-emitters-${++n}`;
  buffer = new AuditBuffer({ send: () => Promise.resolve(), beacon: () => true, dbName });
  // Every log() the trail starts is awaited before the buffer is read.
  pending = [];
  const log = buffer.log.bind(buffer);
  vi.spyOn(buffer, 'log').mockImplementation((...args) => {
    const p = log(...args);
    pending.push(p);
    return p;
  });
  disconnect = connectAuditLog(buffer);
  window.history.replaceState(null, '', '/');
});

afterEach(async () => {
  vi.restoreAllMocks();
  disconnect();
  await buffer.close();
  mockApiMode.value = false;
});

/** What the buffer holds, read from its IndexedDB store through a separate connection. */
async function stored(type?: string): Promise<AuditEvent[]> {
  await settle();
  await Promise.all(pending);
  // The buffer's own schema, for a test where nothing was logged (so the buffer never created its store).
  const db = await openDB(dbName, 1, {
    upgrade(database) {
      database.createObjectStore('events', { autoIncrement: true });
    },
  });
  try {
    const events = ((await db.getAll('events')) as { event: AuditEvent }[]).map((r) => r.event);
    return type ? events.filter((e) => e.event_type === type) : events;
  } finally {
    db.close();
  }
}

function typeInto(input: HTMLInputElement, value: string) {
  act(() => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(input, value);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

const button = (text: string) => [...screen.container.querySelectorAll('button')].find((b) => b.textContent === text)!;

describe('route_change', () => {
  it('records the screen shown and each navigation, path only: no query string, no fragment', async () => {
    window.history.replaceState(null, '', '/reset-password?token=S3CR3T-reset&uid=7#otp=123456');
    act(() => screen.root.render(<RouteAudit />));
    act(() => navigate('/threats?severity=high&text=S3CR3T'));
    // A change of query alone (a list's filters) is no navigation.
    act(() => navigate('/threats?page=2', { replace: true }));
    // The browser's back button: the address changes, then popstate.
    act(() => {
      window.history.replaceState(null, '', '/');
      window.dispatchEvent(new PopStateEvent('popstate'));
    });

    const events = await stored('route_change');
    expect(events.map((e) => e.details)).toEqual([
      { path: '/reset-password', from: null },
      { path: '/threats', from: '/reset-password' },
      { path: '/', from: '/threats' },
    ]);
    expect(events.every((e) => e.severity === 'info')).toBe(true);
    expect(JSON.stringify(events.map((e) => e.details))).not.toMatch(/S3CR3T|123456|token|severity/);
  });

  it('stops when unmounted', async () => {
    act(() => screen.root.render(<RouteAudit />));
    act(() => screen.root.render(<p />));
    act(() => navigate('/assets'));
    expect((await stored('route_change')).map((e) => e.details.path)).toEqual(['/']);
  });
});

describe('the app’s audit buffer keeps and sends no query string', () => {
  it('records the page as origin and path: a reset token never reaches the buffer nor the server', async () => {
    window.history.replaceState(null, '', '/reset-password?token=S3CR3T-reset#frag');
    const disconnectApp = connectAuditLog(audit);
    try {
      recordUiAction('probe');
      await settle();
      await audit.settled();
      await audit.flush();
      const post = screen.calls.find((c) => c.method === 'POST' && c.url.pathname === '/api/audit/events/')!;
      const sent = (post.body as { events: AuditEvent[] }).events;
      expect(sent.map((e) => e.url)).toEqual(['http://localhost:3000/reset-password']);
    } finally {
      disconnectApp();
      await audit.clear();
    }
  });
});

describe('login_failed', () => {
  it('records a refused sign-in as a warning with the username, never the password', async () => {
    screen.handler = () => json({ detail: 'Identifiants invalides.' }, 401);
    act(() => screen.root.render(<LoginPage />));
    typeInto(screen.container.querySelector<HTMLInputElement>('#username')!, 'ana');
    typeInto(screen.container.querySelector<HTMLInputElement>('#password')!, 'Pa55-w0rd!');
    act(() => {
      screen.container.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await settle();
    expect(screen.container.querySelector('[role="alert"]')!.textContent).toBe(
      'Invalid credentials — identifiants invalides : vérifiez le nom d’utilisateur et le mot de passe.',
    );

    const events = await stored('login_failed');
    expect(events).toHaveLength(1);
    expect(events[0]!.severity).toBe('warning');
    expect(events[0]!.details).toEqual({ username: 'ana', reason: 'Identifiants invalides.', status: 401 });
    expect(JSON.stringify(events[0])).not.toContain('Pa55-w0rd!');
  });

  it('records nothing for a form refused before any attempt', async () => {
    act(() => screen.root.render(<LoginPage />));
    typeInto(screen.container.querySelector<HTMLInputElement>('#username')!, 'ana');
    act(() => {
      screen.container.querySelector('form')!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    // No sign-in attempt (the page's one call asks whether registration is open).
    expect(screen.calls.filter((c) => c.url.pathname !== '/api/register/')).toHaveLength(0);
    expect(await stored('login_failed')).toEqual([]);
  });
});

describe('ui_action', () => {
  it('records the mock API mode switch, both ways', async () => {
    act(() => screen.root.render(<MockModeToggle />));
    const box = screen.container.querySelector<HTMLInputElement>('input[type="checkbox"]')!;
    act(() => box.click());
    await settle();
    act(() => box.click());
    await settle();
    expect((await stored('ui_action')).map((e) => e.details)).toEqual([
      { action: 'mock_api_mode', enabled: true },
      { action: 'mock_api_mode', enabled: false },
    ]);
  });

  it('records a task launch and a task cancel, with their result', async () => {
    signIn('manager');
    screen.handler = (method, url) => {
      if (method === 'POST' && url.pathname === '/api/celery/tasks/run/')
        return json({
          task_id: 'run-1',
          task_name: 'vulnerabilities.tasks.update_cve_database',
          status: 'PENDING',
          message: 'Tâche lancée.',
          created_at: null,
        });
      if (method === 'POST') return json({ id: 'a', name: 'MAJ', full_name: 'x', status: 'REVOKED', meta: {} });
      if (url.pathname === '/api/celery/tasks/available/')
        return json({
          tasks: [{ task_name: 'vulnerabilities.tasks.update_cve_database', name: 'MAJ', scope: 'platform' }],
        });
      return json({
        recent_tasks: [
          {
            id: 'a',
            name: 'MAJ',
            full_name: 'vulnerabilities.tasks.update_cve_database',
            status: 'STARTED',
            date_done: null,
            result: null,
            meta: { progress: 10 },
          },
        ],
        scheduled_tasks: [],
      });
    };
    act(() => screen.root.render(<TasksPage />));
    await settle();
    act(() => button('Lancer').click());
    await settle();
    act(() => button('Annuler').click());
    const reason = screen.container.querySelector<HTMLInputElement>('.task-cancel input')!;
    typeInto(reason, 'Trop long');
    act(() => {
      reason.form!.dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
    });
    await settle();

    expect((await stored('ui_action')).map((e) => e.details)).toEqual([
      {
        action: 'task_launch',
        task: 'vulnerabilities.tasks.update_cve_database',
        result: 'launched',
        task_id: 'run-1',
        status: 'PENDING',
        origin: 'network',
      },
      {
        action: 'task_cancel',
        task_id: 'a',
        task: 'vulnerabilities.tasks.update_cve_database',
        reason: 'Trop long',
        result: 'cancelled',
      },
    ]);
  });

  it('records a failed task launch as such', async () => {
    signIn('manager');
    screen.handler = (method, url) => {
      if (method === 'POST') return json({ detail: 'File de tâches indisponible.' }, 409);
      if (url.pathname === '/api/celery/tasks/available/')
        return json({ tasks: [{ task_name: 't.update', name: 'MAJ', scope: 'platform' }] });
      return json({ recent_tasks: [], scheduled_tasks: [] });
    };
    act(() => screen.root.render(<TasksPage />));
    await settle();
    act(() => button('Lancer').click());
    await settle();
    expect((await stored('ui_action')).map((e) => e.details)).toEqual([
      { action: 'task_launch', task: 't.update', result: 'failed', message: 'File de tâches indisponible.' },
    ]);
  });

  it('records an export with its format, source and filters', async () => {
    screen.handler = () => new Response('[]', { headers: { 'content-type': 'application/json' } });
    // The saved file: no navigation to the object URL.
    const saved = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => {});
    act(() =>
      screen.root.render(
        <ExportControls
          label="Exporter le journal d’audit"
          className="export"
          expectedRows={null}
          target={(format) => ({
            path: `/audit/export/${format}/`,
            query: { severity: 'ERROR' },
            filename: `audit.${format}`,
          })}
          errorMessage={(format) => `Impossible d'exporter les données d'audit en ${format}.`}
        />,
      ),
    );
    act(() => button('Exporter en JSON').click());
    await settle();
    expect(saved).toHaveBeenCalledTimes(1);
    expect((await stored('ui_action')).map((e) => e.details)).toEqual([
      {
        action: 'export',
        export: 'Exporter le journal d’audit',
        format: 'json',
        path: '/audit/export/json/',
        filters: { severity: 'ERROR' },
      },
    ]);
  });

  it('records a confirmed delete, and nothing for « Non »', async () => {
    const onConfirm = vi.fn();
    act(() =>
      screen.root.render(
        <ConfirmDelete
          name="fw-paris-01"
          question="Supprimer cet actif ?"
          busy={false}
          onConfirm={onConfirm}
          onCancel={() => {}}
        />,
      ),
    );
    act(() => button('Non').click());
    expect(await stored('ui_action')).toEqual([]);
    act(() => button('Oui, supprimer').click());
    expect(onConfirm).toHaveBeenCalledTimes(1);
    const events = await stored('ui_action');
    expect(events.map((e) => [e.severity, e.details])).toEqual([
      ['info', { action: 'delete_confirmed', name: 'fw-paris-01', question: 'Supprimer cet actif ?' }],
    ]);
  });
});

function WriteGate({ label }: { label: string }) {
  return <p>{useCanWrite() ? `${label} : écriture` : `${label} : lecture seule`}</p>;
}

/** Like the router: each path mounts its own screen. */
function Screens({ labels }: { labels: string[] }) {
  const [path] = useLocation();
  return (
    <div key={path}>
      {labels.map((label) => (
        <WriteGate key={label} label={label} />
      ))}
    </div>
  );
}

describe('permission_check', () => {
  it('records the write check of a screen once per visit, with the permission and its result', async () => {
    signIn('readonly');
    window.history.replaceState(null, '', '/assets');
    // Two parts of the same screen ask, and it re-renders: one event.
    act(() =>
      screen.root.render(
        <>
          <RouteAudit />
          <Screens labels={['a', 'b']} />
        </>,
      ),
    );
    act(() =>
      screen.root.render(
        <>
          <RouteAudit />
          <Screens labels={['a', 'b', 'c']} />
        </>,
      ),
    );
    expect(screen.container.textContent).toContain('a : lecture seule');
    let checks = await stored('permission_check');
    expect(checks.map((e) => [e.severity, e.details])).toEqual([
      ['info', { permission: 'write', result: 'denied', role: 'readonly', path: '/assets' }],
    ]);

    // Another screen, then back: each visit is checked again.
    act(() => navigate('/threats'));
    act(() => navigate('/assets'));
    checks = await stored('permission_check');
    expect(checks.map((e) => e.details.path)).toEqual(['/assets', '/threats', '/assets']);
  });

  it('records a granted check too, and none while signed out', async () => {
    session.value = null;
    window.history.replaceState(null, '', '/projects');
    act(() => screen.root.render(<WriteGate label="x" />));
    expect(await stored('permission_check')).toEqual([]);
    act(() => signIn('user'));
    expect((await stored('permission_check')).map((e) => e.details)).toEqual([
      { permission: 'write', result: 'granted', role: 'user', path: '/projects' },
    ]);
  });

  it('records the administration check once per visit', async () => {
    window.history.replaceState(null, '', '/admin/users');
    const profile = { id: 2, username: 'bob', email: 'bob@example.fr', role: 'user' };
    expect(isAdministrator(profile, 't1')).toBe(false);
    expect(isAdministrator(profile, 't1')).toBe(false);
    window.history.replaceState(null, '', '/admin/users?page=2');
    expect(isAdministrator(profile, 't1')).toBe(false);
    window.history.replaceState(null, '', '/admin');
    expect(isAdministrator({ ...profile, tenant_memberships: [{ tenant_id: 't1', role: 'admin' }] }, 't1')).toBe(true);
    expect((await stored('permission_check')).map((e) => e.details)).toEqual([
      { permission: 'admin_console', result: 'denied', role: 'user', path: '/admin/users' },
      { permission: 'admin_console', result: 'granted', role: 'admin', path: '/admin' },
    ]);
  });
});

describe('the trail before the buffer is connected', () => {
  it('keeps what was recorded and hands it over when connected', async () => {
    disconnect();
    setAuditLogSink(null);
    recordUiAction('early', { n: 1 });
    disconnect = connectAuditLog(buffer);
    expect((await stored('ui_action')).map((e) => e.details)).toEqual([{ action: 'early', n: 1 }]);
  });
});
