import { describe, expect, it } from 'vitest';
import { sampleAreaOf, sampleBody, type SampleArea, type SampleContext } from '../../sw/samples.ts';
import auditEmpty from '../../sample-data/audit-empty.json';
import blogPosts from '../../sample-data/blog-posts.json';
import celeryTasks from '../../sample-data/celery-tasks.json';
import notificationsEmpty from '../../sample-data/notifications-empty.json';
import projects from '../../sample-data/projects.json';
import taskLaunch from '../../sample-data/task-launch.json';
import vulnerabilitySummary from '../../sample-data/vulnerability-summary.json';
import {
  PROJECT_SPEC_FIELDS,
  TASK_META_KEYS,
  TEAM_MEMBER_FIELDS,
  VULNERABILITY_SUMMARY_SPEC_FIELDS,
} from '../server/support/contract.ts';

const NOW = new Date('2025-06-02T10:30:00Z');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function ctx(pathname: string, extra: Partial<SampleContext> = {}): SampleContext {
  return { now: NOW, pathname, method: 'GET', ...extra };
}

/** Serves `pathname` the way the service worker does: area first, then the body. */
function serve(method: string, pathname: string, extra: Partial<SampleContext> = {}): unknown {
  const area = sampleAreaOf(method, pathname);
  if (!area) throw new Error(`no sample area for ${method} ${pathname}`);
  return sampleBody(area, ctx(pathname, { method, ...extra }));
}

function expectKeys(value: unknown, keys: readonly string[]) {
  expect(value).toBeTypeOf('object');
  expect(value).not.toBeNull();
  for (const key of keys) expect(value, key).toHaveProperty([key]);
}

describe('sampleAreaOf: which spec §8 area a URL belongs to', () => {
  const positives: [string, string, SampleArea][] = [
    ['GET', '/api/projects/', 'projects'],
    ['GET', '/api/projects', 'projects'],
    ['GET', '/api/api/projects/', 'projects'],
    ['get', '/api//projects/', 'projects'],
    ['GET', '/api/celery/', 'celery'],
    ['GET', '/api/celery/tasks/recent/', 'celery'],
    ['GET', '/api/api/celery/scheduled', 'celery'],
    ['GET', '/api/tasks/', 'celery'],
    ['GET', '/api/tasks/recent_tasks', 'celery'],
    ['GET', '/api/vulnerabilities/summary/', 'vulnerability-summary'],
    ['GET', '/api/vulnerabilities/summary', 'vulnerability-summary'],
    ['GET', '/api/api/vulnerabilities/summary/', 'vulnerability-summary'],
    ['POST', '/api/celery/run/', 'task-run'],
    ['POST', '/api/celery/run', 'task-run'],
    ['POST', '/api/api/celery/run/', 'task-run'],
    ['POST', '/api/tasks/run/', 'task-run'],
    ['POST', '/api/tasks/launch', 'task-run'],
    ['POST', '/api/celery/tasks/run/', 'task-run'],
    ['POST', '/api/celery/run-task/', 'task-run'],
    ['POST', '/api/celery/run_task/', 'task-run'],
    ['POST', '/api/celery/run/vulnerabilities.tasks.sync_cisa_kev/', 'task-run'],
    ['post', '/api/tasks/cve_update/run/', 'task-run'],
    ['GET', '/api/audit/results/', 'audit'],
    ['GET', '/api/audit/results', 'audit'],
    ['GET', '/api/api/audit/results/', 'audit'],
    ['GET', '/api/audit/', 'audit'],
    ['GET', '/api/notifications/notifications/', 'notifications'],
    ['GET', '/api/notifications', 'notifications'],
    ['GET', '/api/api/notifications/notifications', 'notifications'],
    ['GET', '/api/blog/', 'blog'],
    ['GET', '/api/blog/posts', 'blog'],
    ['GET', '/api/blog/tags/', 'blog'],
    ['GET', '/api/notifications/notifications/unread_count/', 'notifications'],
  ];
  it.each(positives)('%s %s → %s', (method, pathname, area) => {
    expect(sampleAreaOf(method, pathname)).toBe(area);
  });

  const negatives: [string, string][] = [
    // One missing record is never replaced by a sample: a missing area is not a missing object.
    ['GET', '/api/projects/2/'],
    ['GET', '/api/projects/2'],
    ['GET', '/api/projects/999999/'],
    ['GET', '/api/projects/5b9e7c3d-1f2a-4e6b-a0c4-8d3f2e1b9a70/'],
    ['GET', '/api/celery/status/3f6c2a1e-8b4d-4c7a-9e21-5d0b7f1a4c93'],
    ['GET', '/api/celery/tasks/3f6c2a1e-8b4d-4c7a-9e21-5d0b7f1a4c93/'],
    ['GET', '/api/audit/results/99999/'],
    ['GET', '/api/notifications/notifications/99999/'],
    ['GET', '/api/api/blog/posts/prioriser-correctifs-kev-epss/'],
    ['GET', '/api/blog/prioriser-correctifs-kev-epss'],
    // Other areas have no sample.
    ['GET', '/api/assets/'],
    ['GET', '/api/threats/'],
    ['GET', '/api/users/me/'],
    ['GET', '/api/admin/tenants/'],
    ['GET', '/api/'],
    ['GET', '/api'],
    // Not under /api.
    ['GET', '/projects/'],
    ['GET', '/blog/'],
    ['GET', '/celery/run/'],
    // Look-alike prefixes.
    ['GET', '/api/projectsx/'],
    ['GET', '/api/blogs/'],
    ['GET', '/api/auditlog/'],
    ['GET', '/api/notification/'],
    ['GET', '/api/celery-beat/'],
    // Project sub-resources have another shape.
    ['GET', '/api/projects/assets/'],
    ['GET', '/api/projects/risks/'],
    ['GET', '/api/projects/2/dashboard/'],
    ['GET', '/api/projects/2/team-members/'],
    // Other vulnerability URLs.
    ['GET', '/api/vulnerabilities/vulnerabilities/'],
    ['GET', '/api/vulnerabilities/summary/extra/'],
    ['POST', '/api/vulnerabilities/summary/'],
    // Writes are never faked, except a task run.
    ['POST', '/api/projects/'],
    ['PUT', '/api/projects/2/'],
    ['DELETE', '/api/projects/2/'],
    ['POST', '/api/celery/'],
    ['POST', '/api/celery/revoke/'],
    ['POST', '/api/tasks/runs/list/extra/'],
    ['PUT', '/api/celery/run/'],
    ['POST', '/api/notifications/notifications/'],
    ['POST', '/api/notifications/notifications/mark_all_as_read/'],
    ['POST', '/api/audit/events/'],
    ['POST', '/api/blog/posts/'],
    // A task run is a POST; run under another area is not one.
    ['POST', '/api/projects/run/'],
    ['POST', '/api/vulnerabilities/scans/1/start/'],
    // Audit exports are file downloads.
    ['GET', '/api/audit/export/csv/'],
  ];
  it.each(negatives)('%s %s → null', (method, pathname) => {
    expect(sampleAreaOf(method, pathname)).toBeNull();
  });
});

describe('projects sample (spec §3 Project)', () => {
  it('is a paged list of 2 to 3 projects with every spec §3 field and the seen status and priority values', () => {
    const list = serve('GET', '/api/projects/') as typeof projects;
    expectKeys(list, ['count', 'next', 'previous', 'results']);
    expect(list.next).toBeNull();
    expect(list.previous).toBeNull();
    expect(list.results.length).toBeGreaterThanOrEqual(2);
    expect(list.results.length).toBeLessThanOrEqual(3);
    expect(list.count).toBe(list.results.length);
    for (const project of list.results) {
      expectKeys(project, PROJECT_SPEC_FIELDS);
      expect(['PLANNED', 'IN_PROGRESS', 'COMPLETED']).toContain(project.status);
      expect(['MEDIUM', 'HIGH', 'CRITICAL']).toContain(project.priority);
      // The owner as the API presents it (docs/api-projects.md), and only read access: sample data is never edited.
      expectKeys(project.owner, ['id', 'name', 'email']);
      expect(project.access).toBe('read');
      for (const member of project.team_members) {
        expectKeys(member, TEAM_MEMBER_FIELDS);
        expect(['ADMIN', 'MEMBER', 'VIEWER']).toContain(member.role);
      }
    }
    expect(new Set(list.results.map((p) => p.id)).size).toBe(list.results.length);
  });

  it('has no single project: a sample project id is no area', () => {
    expect(sampleAreaOf('GET', `/api/projects/${projects.results[1]!.id}/`)).toBeNull();
  });

  it('hands out copies, so changing one answer never changes the next', () => {
    const first = serve('GET', '/api/projects/') as typeof projects;
    first.results.length = 0;
    expect((serve('GET', '/api/projects/') as typeof projects).results).toHaveLength(projects.results.length);
    expect(projects.results.length).toBeGreaterThan(0);
  });
});

describe('celery sample (spec §3 Background task, Scheduled task; spec §9)', () => {
  it('has one recent task per status, with every spec §3 field and every meta key', () => {
    const all = serve('GET', '/api/celery/') as typeof celeryTasks;
    expectKeys(all, ['recent_tasks', 'scheduled_tasks']);
    expect(all.recent_tasks.map((t) => t.status).sort()).toEqual(
      ['FAILURE', 'PENDING', 'REVOKED', 'STARTED', 'SUCCESS'].sort(),
    );
    for (const task of all.recent_tasks) {
      expectKeys(task, ['id', 'name', 'full_name', 'status', 'date_done', 'result', 'meta']);
      expectKeys(task.meta, TASK_META_KEYS);
      if (task.date_done !== null) expect(Number.isNaN(Date.parse(task.date_done))).toBe(false);
    }
    const failure = all.recent_tasks.find((t) => t.status === 'FAILURE')!;
    expect(failure.meta.error).toBeTruthy();
    const revoked = all.recent_tasks.find((t) => t.status === 'REVOKED')!;
    expect(revoked.meta.revoked_by).toBeTruthy();
    expect(revoked.meta.reason).toBeTruthy();
  });

  it('schedules a 5-year CVE indexing task and a daily CVE update at 02:00', () => {
    const { scheduled_tasks } = serve('GET', '/api/celery/') as typeof celeryTasks;
    for (const task of scheduled_tasks) expectKeys(task, ['id', 'name', 'task', 'schedule']);
    expect(
      scheduled_tasks.some((t) => /5 dernières années/.test(t.name) && /CVE/.test(t.name) && /index/i.test(t.task)),
    ).toBe(true);
    const daily = scheduled_tasks.find((t) => /tous les jours/i.test(t.schedule));
    expect(daily?.schedule).toContain('02:00');
    expect(daily?.name).toMatch(/CVE/);
  });

  it('serves the list the path words ask for, else the whole object', () => {
    expect(serve('GET', '/api/celery/tasks/recent/')).toEqual(celeryTasks.recent_tasks);
    expect(serve('GET', '/api/tasks/recent_tasks')).toEqual(celeryTasks.recent_tasks);
    expect(serve('GET', '/api/celery/tasks/scheduled/')).toEqual(celeryTasks.scheduled_tasks);
    expect(serve('GET', '/api/api/tasks/scheduled-tasks')).toEqual(celeryTasks.scheduled_tasks);
    expect(serve('GET', '/api/celery/tasks/')).toEqual(celeryTasks);
  });

  it('has no single task: a path naming a task id is no area', () => {
    expect(sampleAreaOf('GET', `/api/celery/status/${celeryTasks.recent_tasks[2]!.id}/`)).toBeNull();
  });
});

describe('vulnerability dashboard summary sample (spec §3, §8)', () => {
  it('has every spec §3 field and a severity distribution summing to the total', () => {
    const summary = serve('GET', '/api/vulnerabilities/summary/') as typeof vulnerabilitySummary;
    expectKeys(summary, VULNERABILITY_SUMMARY_SPEC_FIELDS);
    const d = summary.severity_distribution;
    expectKeys(d, ['critical', 'high', 'medium', 'low', 'info', 'unrated']);
    expect(Object.keys(d).sort()).toEqual(['critical', 'high', 'info', 'low', 'medium', 'unrated']);
    expect(d.critical + d.high + d.medium + d.low + d.info + d.unrated).toBe(summary.total_vulnerabilities);
    expect(summary.total_vulnerabilities).toBeGreaterThan(0);
    expect(summary.recently_added.length).toBeGreaterThan(0);
    for (const v of summary.recently_added) {
      expectKeys(v, ['id', 'cve_id', 'title', 'severity', 'asset', 'created_at']);
      expect(v.cve_id).toMatch(/^CVE-\d{4}-\d{4,}$/);
      expect(Object.keys(d)).toContain(v.severity);
    }
    for (const a of summary.top_affected_assets) expectKeys(a, ['asset', 'count']);
    for (const c of summary.top_cwe_categories) {
      expectKeys(c, ['cwe_id', 'name', 'count']);
      expect(c.cwe_id).toMatch(/^CWE-\d+$/);
    }
  });

  it('dates the trends at serve time: exactly the 3 days ending today, oldest first', () => {
    const at = (iso: string) =>
      (
        sampleBody(
          'vulnerability-summary',
          ctx('/api/vulnerabilities/summary/', { now: new Date(iso) }),
        ) as typeof vulnerabilitySummary
      ).vulnerability_trends;
    const counts = vulnerabilitySummary.vulnerability_trends.map((t) => t.count);

    expect(at('2025-06-02T10:30:00Z')).toEqual([
      { date: '2025-05-31', count: counts[0] },
      { date: '2025-06-01', count: counts[1] },
      { date: '2025-06-02', count: counts[2] },
    ]);
    // Across a leap day and a year end.
    expect(at('2024-03-01T23:59:59Z').map((t) => t.date)).toEqual(['2024-02-28', '2024-02-29', '2024-03-01']);
    expect(at('2026-01-01T00:00:00Z').map((t) => t.date)).toEqual(['2025-12-30', '2025-12-31', '2026-01-01']);
    for (const t of at('2030-07-15T12:00:00Z')) expectKeys(t, ['date', 'count']);
  });
});

describe('task launch sample (spec §3 Task launch result, §8)', () => {
  it('is PENDING with the simulation message, a fresh id, the body task_name and created_at now', () => {
    const first = serve('POST', '/api/celery/run/', { body: { task_name: 'vulnerabilities.tasks.sync_cisa_kev' } });
    const second = serve('POST', '/api/celery/run/', { body: { task_name: 'vulnerabilities.tasks.sync_cisa_kev' } });
    expect(first).toEqual({
      task_id: expect.stringMatching(UUID),
      task_name: 'vulnerabilities.tasks.sync_cisa_kev',
      status: 'PENDING',
      message: 'Tâche lancée avec succès (simulation)',
      created_at: NOW.toISOString(),
    });
    expect((first as typeof taskLaunch).task_id).not.toBe((second as typeof taskLaunch).task_id);
  });

  it('takes task_name from a JSON text body, then from the path, else the default', () => {
    const name = (pathname: string, body?: unknown) =>
      (serve('POST', pathname, { body }) as typeof taskLaunch).task_name;
    expect(name('/api/tasks/run/', '{"task_name":"scans.tasks.run_network_scan"}')).toBe(
      'scans.tasks.run_network_scan',
    );
    expect(name('/api/celery/run/vulnerabilities.tasks.refresh_epss_scores/')).toBe(
      'vulnerabilities.tasks.refresh_epss_scores',
    );
    expect(name('/api/celery/run/other/', { task_name: 'from.body' })).toBe('from.body');
    expect(name('/api/celery/run/', {})).toBe(taskLaunch.task_name);
    expect(name('/api/celery/run/', { task_name: '  ' })).toBe(taskLaunch.task_name);
    expect(name('/api/celery/run/', 'not json')).toBe(taskLaunch.task_name);
    expect(taskLaunch.task_name).toBeTruthy();
  });

  it('follows ctx.now for created_at', () => {
    const now = new Date('2026-02-14T08:00:00Z');
    const body = sampleBody('task-run', { now, pathname: '/api/tasks/run/', method: 'POST' }) as typeof taskLaunch;
    expect(body.created_at).toBe('2026-02-14T08:00:00.000Z');
    expect(body.status).toBe('PENDING');
  });
});

describe('audit and notifications samples (spec §3, §8)', () => {
  it('serves an empty audit page with the default pagination', () => {
    expect(serve('GET', '/api/audit/results/')).toEqual({ results: [], total: 0, page: 1, size: 10, pages: 0 });
    expect(auditEmpty.results).toEqual([]);
  });

  it('serves an empty notifications page', () => {
    expect(serve('GET', '/api/notifications/notifications/')).toEqual({ results: [] });
    expect(notificationsEmpty).toEqual({ results: [] });
  });
});

describe('blog sample (spec §3 Blog post, §8)', () => {
  const fields = ['id', 'title', 'slug', 'excerpt', 'content', 'author', 'published_date', 'tags', 'featured_image'];

  it('lists exactly two posts with every spec §3 field', () => {
    for (const pathname of ['/api/blog/', '/api/blog/posts/', '/api/api/blog/posts']) {
      const list = serve('GET', pathname) as typeof blogPosts;
      expect(list.results).toHaveLength(2);
      expect(list.count).toBe(2);
      for (const post of list.results) {
        expectKeys(post, fields);
        expect(post.slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
        expect(Array.isArray(post.tags)).toBe(true);
        expect(Number.isNaN(Date.parse(post.published_date))).toBe(false);
        // No third-party images: null or a same-origin path.
        if (post.featured_image !== null) expect(post.featured_image).toMatch(/^\/(?!\/)/);
      }
    }
  });

  it('has no single post: a slug or an id is no area', () => {
    const [first, second] = blogPosts.results;
    expect(sampleAreaOf('GET', `/api/blog/posts/${second!.slug}/`)).toBeNull();
    expect(sampleAreaOf('GET', `/api/blog/${first!.slug}`)).toBeNull();
    expect(sampleAreaOf('GET', `/api/blog/posts/${second!.id}/`)).toBeNull();
  });

  it('serves the two posts’ tags, most used first', () => {
    const tags = serve('GET', '/api/blog/tags/') as { results: { tag: string; count: number }[] };
    const expected = new Set(blogPosts.results.flatMap((p) => p.tags));
    expect(new Set(tags.results.map((t) => t.tag))).toEqual(expected);
    const counts = tags.results.map((t) => t.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });
});
