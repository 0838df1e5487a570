/**
 * Built-in sample data (spec §8): what the service worker serves, marked as sample data, when the backend answers
 * 404 for one of the spec §8 areas or cannot be reached. Pure functions over the JSON in sample-data/, with no
 * service-worker globals, so the page-side tests import them too.
 *
 * URL patterns, matched on the pathname after normalisation (query and hash dropped, doubled slashes collapsed,
 * a doubled /api prefix such as /api/api/… removed, a trailing slash added, so /api/projects and
 * /api/api//projects/ both read /api/projects/); methods are compared case-insensitively:
 *
 * | area                  | method | pathname                                                                  |
 * | --------------------- | ------ | ------------------------------------------------------------------------- |
 * | projects              | GET    | /api/projects/                                                            |
 * | celery                | GET    | /api/celery/ and /api/tasks/, and the lists below them (recent, scheduled,  |
 * |                       |        | available…)                                                               |
 * | task-run              | POST   | /api/celery/…/{run}/ or /api/celery/…/{run}/{task_name}/, same under      |
 * |                       |        | /api/tasks/; {run} is one of run, launch, run-task, run_task              |
 * |                       |        | (so /api/celery/run/, /api/tasks/run/, /api/celery/tasks/x/run/, …)       |
 * | vulnerability-summary | GET    | /api/vulnerabilities/summary/                                             |
 * | audit                 | GET    | /api/audit/ and its lists, except /api/audit/export/… (file downloads)    |
 * | notifications         | GET    | /api/notifications/ and its lists (unread_count included)                 |
 * | blog                  | GET    | /api/blog/, /api/blog/posts/ and /api/blog/tags/                          |
 *
 * A sample stands in for an AREA the backend does not serve, never for one missing OBJECT: a URL naming a
 * record (a numeric or UUID segment, a blog post's slug, a task's id) has no sample, so a project that does
 * not exist or belongs to another tenant reads « introuvable », never as an invented project. A DRF backend
 * without the projects app answers 404 on /api/projects/ (sample); one with it answers 404 on
 * /api/projects/99/ (a real 404, passed on).
 *
 * Everything else has no sample (null): other /api areas, project sub-resources (/api/projects/assets/,
 * /api/projects/{id}/dashboard/, …) whose shape these files do not hold, and every write except a task run,
 * since pretending a write succeeded would lose it.
 */
import auditEmpty from '../sample-data/audit-empty.json';
import blogPosts from '../sample-data/blog-posts.json';
import celeryTasks from '../sample-data/celery-tasks.json';
import notificationsEmpty from '../sample-data/notifications-empty.json';
import projects from '../sample-data/projects.json';
import taskLaunch from '../sample-data/task-launch.json';
import vulnerabilitySummary from '../sample-data/vulnerability-summary.json';

export type SampleArea =
  'projects' | 'celery' | 'vulnerability-summary' | 'task-run' | 'audit' | 'notifications' | 'blog';

export interface SampleContext {
  /** Serve time: the vulnerability trends and a launch's created_at are computed from it. */
  now: Date;
  pathname: string;
  method: string;
  /** The request's JSON body (parsed, or its text), read for a task run's task_name. */
  body?: unknown;
}

const RUN_WORDS = new Set(['run', 'launch', 'run-task', 'run_task']);
const RECORD_ID = /^(\d+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
const DAY_MS = 86_400_000;

/** The pathname's segments after normalisation, e.g. '/api/api//blog/posts' → ['api', 'blog', 'posts']. */
function segmentsOf(pathname: string): string[] {
  let p = ('/' + (pathname.split(/[?#]/, 1)[0] ?? '')).replace(/\/{2,}/g, '/');
  while (p === '/api/api' || p.startsWith('/api/api/')) p = p.slice('/api'.length);
  return p
    .split('/')
    .filter((s) => s !== '')
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

/** For a task-run path (segments below /api/celery or /api/tasks): the task name it carries, '' when none. */
function runPathTaskName(rest: string[]): string | undefined {
  const last = rest.at(-1);
  if (last !== undefined && RUN_WORDS.has(last)) return '';
  const beforeLast = rest.at(-2);
  if (beforeLast !== undefined && last !== undefined && RUN_WORDS.has(beforeLast)) return last;
  return undefined;
}

/** Lists under /api/blog/; any other segment there is a post's slug. */
const BLOG_LISTS = new Set(['posts', 'tags']);

/** True when the segments below an area name one record (a numeric or UUID id). */
function namesRecord(rest: string[]): boolean {
  return rest.some((s) => RECORD_ID.test(s));
}

/** Which spec §8 area a request belongs to, or null when it gets no sample (see the table above). */
export function sampleAreaOf(method: string, pathname: string): SampleArea | null {
  const m = method.toUpperCase();
  const [api, root, ...rest] = segmentsOf(pathname);
  if (api !== 'api') return null;
  switch (root) {
    case 'projects':
      return m === 'GET' && rest.length === 0 ? 'projects' : null;
    case 'celery':
    case 'tasks':
      if (m === 'POST') return runPathTaskName(rest) === undefined ? null : 'task-run';
      return m === 'GET' && !namesRecord(rest) ? 'celery' : null;
    case 'vulnerabilities':
      return m === 'GET' && rest.length === 1 && rest[0] === 'summary' ? 'vulnerability-summary' : null;
    case 'audit':
      return m === 'GET' && rest[0] !== 'export' && !namesRecord(rest) ? 'audit' : null;
    case 'notifications':
      return m === 'GET' && !namesRecord(rest) ? 'notifications' : null;
    case 'blog':
      return m === 'GET' && (rest.length === 0 || (rest.length === 1 && BLOG_LISTS.has(rest[0]!))) ? 'blog' : null;
    default:
      return null;
  }
}

/** YYYY-MM-DD of the UTC day `daysBack` days before `now`. */
function utcDay(now: Date, daysBack: number): string {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(midnight - daysBack * DAY_MS).toISOString().slice(0, 10);
}

function bodyTaskName(body: unknown): string | undefined {
  let value = body;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (value && typeof value === 'object' && 'task_name' in value && typeof value.task_name === 'string') {
    const name = value.task_name.trim();
    if (name !== '') return name;
  }
  return undefined;
}

function vulnerabilitySummaryBody(now: Date) {
  const summary = structuredClone(vulnerabilitySummary);
  // The three UTC days ending today, oldest first, with the file's counts in order.
  summary.vulnerability_trends = [2, 1, 0].map((daysBack, i) => ({
    date: utcDay(now, daysBack),
    count: vulnerabilitySummary.vulnerability_trends[i]?.count ?? 0,
  }));
  return summary;
}

function taskRunBody(ctx: SampleContext, rest: string[]) {
  const fromPath = runPathTaskName(rest);
  return {
    ...structuredClone(taskLaunch),
    task_id: crypto.randomUUID(),
    task_name: bodyTaskName(ctx.body) ?? (fromPath || taskLaunch.task_name),
    created_at: ctx.now.toISOString(),
  };
}

/** /api/celery/…: the list the path words ask for. */
function celeryBody(rest: string[]) {
  if (rest.some((s) => /schedul/i.test(s))) return structuredClone(celeryTasks.scheduled_tasks);
  if (rest.some((s) => /recent/i.test(s))) return structuredClone(celeryTasks.recent_tasks);
  return structuredClone(celeryTasks);
}

/** /api/blog/ and /api/blog/posts/: the two posts; /api/blog/tags/: their tags, most used first. */
function blogBody(rest: string[]) {
  if (rest[0] !== 'tags') return structuredClone(blogPosts);
  const counts = new Map<string, number>();
  for (const post of blogPosts.results) for (const tag of post.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  return { results: [...counts].map(([tag, count]) => ({ tag, count })).sort((a, b) => b.count - a.count) };
}

/** The JSON to serve for `area`: a fresh copy of the file with the dynamic parts computed from ctx. */
export function sampleBody(area: SampleArea, ctx: SampleContext): unknown {
  const rest = segmentsOf(ctx.pathname).slice(2);
  switch (area) {
    case 'projects':
      return structuredClone(projects);
    case 'celery':
      return celeryBody(rest);
    case 'vulnerability-summary':
      return vulnerabilitySummaryBody(ctx.now);
    case 'task-run':
      return taskRunBody(ctx, rest);
    case 'audit':
      return structuredClone(auditEmpty);
    case 'notifications':
      return structuredClone(notificationsEmpty);
    case 'blog':
      return blogBody(rest);
  }
}
