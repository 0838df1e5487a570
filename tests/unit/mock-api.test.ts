import { describe, expect, it } from 'vitest';
import { MOCK_MESSAGES, mockAnswer, mockResponse } from '../../sw/mock-api.ts';
import celeryTasks from '../../sample-data/celery-tasks.json';
import vulnerabilitySummary from '../../sample-data/vulnerability-summary.json';

const NOW = new Date('2026-11-24T10:00:00Z');

describe('mock API mode: every request answered on the device', () => {
  it('serves the spec §8 samples for the sample areas', () => {
    const summary = mockAnswer('GET', '/api/vulnerabilities/summary/', undefined, NOW)!;
    expect(summary.status).toBe(200);
    expect((summary.body as typeof vulnerabilitySummary).total_vulnerabilities).toBe(
      vulnerabilitySummary.total_vulnerabilities,
    );
    expect(
      (mockAnswer('GET', '/api/celery/tasks/', undefined, NOW)!.body as typeof celeryTasks).recent_tasks,
    ).toHaveLength(celeryTasks.recent_tasks.length);
  });

  it('answers a task launch with the PENDING simulation, never the server', () => {
    const launch = mockAnswer('POST', '/api/celery/tasks/run/', { task_name: 'cve_update' }, NOW)!;
    expect(launch.status).toBe(200);
    expect(launch.body).toMatchObject({
      status: 'PENDING',
      message: 'Tâche lancée avec succès (simulation)',
      task_name: 'cve_update',
      created_at: NOW.toISOString(),
    });
  });

  it('answers a cancel with a simulated REVOKED task, or « introuvable » for an unknown id', () => {
    const running = celeryTasks.recent_tasks.find((t) => t.status === 'STARTED')!;
    const cancel = mockAnswer('POST', `/api/celery/tasks/${running.id}/cancel/`, {}, NOW)!;
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ id: running.id, status: 'REVOKED', meta: { revoked_by: 'simulation' } });
    expect(mockAnswer('POST', '/api/celery/tasks/00000000-0000-4000-8000-000000000000/cancel/', {}, NOW)!.status).toBe(
      404,
    );
  });

  it('reads other lists as empty and other records as « introuvable »', () => {
    const threats = mockAnswer('GET', '/api/threats/', undefined, NOW)!;
    expect(threats).toEqual({
      status: 200,
      body: expect.objectContaining({ count: 0, results: [], total: 0 }) as unknown,
    });
    const project = mockAnswer('GET', '/api/projects/1/', undefined, NOW)!;
    expect(project.status).toBe(404);
    expect(project.body).toMatchObject({ detail: MOCK_MESSAGES.notFound });
  });

  it('refuses other writes in French, sends no file, keeps audit events for later', () => {
    for (const [method, path] of [
      ['POST', '/api/projects/'],
      ['PATCH', '/api/projects/1/'],
      ['DELETE', '/api/vulnerabilities/scans/3/'],
      ['POST', '/api/vulnerabilities/scans/3/start/'],
    ] as const) {
      const answer = mockAnswer(method, path, {}, NOW)!;
      expect(answer.status, path).toBe(503);
      expect(answer.body).toMatchObject({ detail: MOCK_MESSAGES.write, code: 'mock_mode' });
    }
    expect(mockAnswer('GET', '/api/vulnerabilities/export/', undefined, NOW)!.status).toBe(503);
    expect(mockAnswer('POST', '/api/audit/events/', { events: [] }, NOW)!.status).toBe(503);
    expect(mockAnswer('GET', '/api/notifications/stream/', undefined, NOW)!.status).toBe(204);
  });

  it('answers the reachability probes locally and lets identity calls go to the server', () => {
    expect(mockAnswer('GET', '/api/current-user/', undefined, NOW)!.status).toBe(200);
    expect(mockAnswer('GET', '/api/health/', undefined, NOW)!.status).toBe(200);
    expect(mockAnswer('POST', '/api/token/', {}, NOW)).toBeNull();
    expect(mockAnswer('POST', '/api/token/refresh/', {}, NOW)).toBeNull();
    expect(mockAnswer('POST', '/api/logout/', {}, NOW)).toBeNull();
    // The account's own reads are not samples: refused in French, not sent.
    expect(mockAnswer('GET', '/api/accounts/2fa/status/', undefined, NOW)).toMatchObject({
      status: 503,
      body: { detail: MOCK_MESSAGES.account },
    });
  });
});

describe('mockResponse: the one Response the worker and the page both give', () => {
  it('marks the answer as sample data and reads a write’s JSON body', async () => {
    const launch = (await mockResponse(
      new Request('http://localhost/api/celery/tasks/run/', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ task_name: 'sync_kev' }),
      }),
    ))!;
    expect(launch.headers.get('x-vigie-source')).toBe('sample');
    expect(launch.headers.get('x-vigie-sample-area')).toBe('task-run');
    expect(await launch.json()).toMatchObject({ status: 'PENDING', task_name: 'sync_kev' });
    const stream = (await mockResponse(new Request('http://localhost/api/notifications/stream/')))!;
    expect(stream.status).toBe(204);
    expect(await mockResponse(new Request('http://localhost/api/token/', { method: 'POST', body: '{}' }))).toBeNull();
  });
});
