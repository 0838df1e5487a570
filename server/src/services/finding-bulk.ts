/**
 * Work on many findings at once (issue 21): assign, set a due date, move through the lifecycle, link to a project or
 * unlink from it every finding of a selection (ids, or all those a filter matches, chosen on the server). One
 * transaction, set-based statements: each changed finding gets its history line (project links: the project's one
 * activity line instead) and its own audit event in that same transaction.
 */
import { sql, type SQL } from 'drizzle-orm';
import {
  FINDING_STATE_LABELS,
  FINDING_STATES,
  isResolvedState,
  JUSTIFIED_STATES,
  canMove,
} from '../../../contract/finding-states.ts';
import { pgArray } from '../db/arrays.ts';
import { rowsOf } from '../db/client.ts';
import type { TenantDb } from '../db/tenant-scope.ts';
import { checkMoveRequest } from '../domain/finding-lifecycle.ts';
import { todayUtc } from '../domain/risk-scoring.ts';
import type { Actor } from '../policies/index.ts';
import { TenantUsersRepository } from '../repositories/tenant-users.ts';
import { VulnerabilitiesRepository } from '../repositories/vulnerabilities.ts';
import { invalid } from '../schemas/fields.ts';
import { MESSAGES, type BulkAction, type BulkSelection } from '../schemas/vulnerabilities.ts';
import { ProjectGate, quoted as quotedTitle } from './projects/access.ts';

/** Ids named one by one: a page's worth of ticked rows. Larger selections go by filter. */
export { MAX_BULK_IDS } from '../schemas/vulnerabilities.ts';

export interface BulkActor {
  userId: number;
  username: string;
  ip: string;
  /** The audit line's browser and system, as for every other audit event. */
  browser: string;
  os: string;
  mayAcceptRisk: boolean;
  /** The caller as the policies see them: a project link goes through the project's gate ('edit'). */
  actor: Actor;
}

export interface BulkResult {
  /** Findings the selection names in the tenant. */
  selected: number;
  changed: number;
  /** Already as asked. */
  unchanged: number;
  /** A move the lifecycle does not allow from their state (they stay as they are). */
  refused: number;
}

const repo = new VulnerabilitiesRepository();
const members = new TenantUsersRepository();
const gate = new ProjectGate();
const NUMBER = new Intl.NumberFormat('fr-FR');

const quoted = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(', '));
/** The French label of the state in `column`, in SQL (the audit line of each finding). */
const labelOf = (column: string) =>
  sql.raw(
    `case ${column} ${FINDING_STATES.map((s) => `when '${s}' then '${FINDING_STATE_LABELS[s].replace(/'/g, "''")}'`).join(' ')} end`,
  );

/** The selection as a condition on `vulnerabilities`, in the current tenant (row-level security holds it too). */
async function selectionCondition(tx: TenantDb, selection: BulkSelection): Promise<SQL> {
  if ('ids' in selection) {
    return sql`vulnerabilities.tenant_id = app_current_tenant() and vulnerabilities.id = any(${pgArray(selection.ids)}::bigint[])`;
  }
  const prepared = await repo.prepare(tx, selection.filters);
  if (prepared.textHashes?.length === 0) return sql`false`;
  return sql.join(repo.conditions(prepared), sql` and `);
}

async function count(tx: TenantDb, where: SQL): Promise<number> {
  return Number(
    rowsOf<{ n: string }>(await tx.execute(sql`select count(*) as n from vulnerabilities where ${where}`))[0]?.n ?? 0,
  );
}

/**
 * Applies `action` to the selection. The rows to change are locked and read once (`old`), then updated, their
 * history lines and audit events inserted from the same rows: what changed is exactly what is recorded.
 */
export async function applyBulk(
  tx: TenantDb,
  selection: BulkSelection,
  action: BulkAction,
  actor: BulkActor,
): Promise<BulkResult> {
  const where = await selectionCondition(tx, selection);
  const selected = await count(tx, where);
  /** One audit event per row of the CTE `rows` (`old` unless said), its columns named in `description` and `details`. */
  const audit = (description: SQL, details: SQL, rows = 'old') => sql`
    insert into audit_events (tenant_id, event_type, user_id, username, ip_address, description, severity, source, details)
    select app_current_tenant(), 'data_change', ${actor.userId}, ${actor.username}, ${actor.ip},
           ${description}, 'INFO', 'server',
           ${details} || jsonb_build_object('browser', ${actor.browser}::text, 'os', ${actor.os}::text, 'success', true)
      from ${sql.raw(rows)}`;
  const history = (kind: string, from: SQL, to: SQL, comment = '') => sql`
    insert into finding_events (tenant_id, vulnerability_id, user_id, kind, from_value, to_value, comment)
    select app_current_tenant(), old.id, ${actor.userId}, ${kind}, ${from}, ${to}, ${comment} from old`;
  const run = async (old: SQL, set: SQL, events: SQL, audited: SQL) => {
    const [row] = rowsOf<{ n: string }>(
      await tx.execute(sql`
        with old as (${old} for update),
             upd as (update vulnerabilities v set ${set}, updated_at = now() from old where v.id = old.id returning v.id),
             ev as (${events}),
             au as (${audited})
        select count(*) as n from upd`),
    );
    return Number(row?.n ?? 0);
  };

  if (action.action === 'assign') {
    const to = action.assigneeId;
    if (to !== null && !(await members.isAssignable(tx, to))) throw invalid('assignee_id', MESSAGES.assignee);
    const changed = await run(
      sql`select id, assignee_id from vulnerabilities where ${where} and assignee_id is distinct from ${to}::int`,
      sql`assignee_id = ${to}::int`,
      history('assignee', sql`old.assignee_id::text`, sql`${to}::text`),
      audit(
        sql`'Vulnérabilité #' || old.id || ' : assignation modifiée (action groupée)'`,
        sql`jsonb_build_object('vulnerability_id', old.id, 'bulk', true, 'assignee_id', ${to}::int)`,
      ),
    );
    return { selected, changed, unchanged: selected - changed, refused: 0 };
  }

  if (action.action === 'due_date') {
    const to = action.dueDate;
    const changed = await run(
      sql`select id, due_date from vulnerabilities where ${where} and due_date is distinct from ${to}::date`,
      sql`due_date = ${to}::date`,
      history('due_date', sql`old.due_date::text`, sql`${to}::text`),
      audit(
        sql`'Vulnérabilité #' || old.id || ' : échéance modifiée (action groupée)'`,
        sql`jsonb_build_object('vulnerability_id', old.id, 'bulk', true, 'due_date', ${to}::text)`,
      ),
    );
    return { selected, changed, unchanged: selected - changed, refused: 0 };
  }

  if (action.action === 'link_project' || action.action === 'unlink_project') {
    return linkProject(tx, where, selected, action.projectId, action.action === 'link_project', actor, audit);
  }

  // A move: checked once (justification, approver, expiry), applied to the findings whose state allows it.
  const { to } = action;
  const comment = checkMoveRequest({
    to,
    comment: action.comment,
    acceptedUntil: action.acceptedUntil,
    userId: actor.userId,
    mayAcceptRisk: actor.mayAcceptRisk,
    today: todayUtc(),
  });
  const from = FINDING_STATES.filter((s) => canMove(s, to));
  const resolved = isResolvedState(to);
  const accepted = to === 'accepted';
  const unchanged = await count(tx, sql`${where} and state = ${to}`);
  const changed =
    from.length === 0
      ? 0
      : await run(
          sql`select id, state, is_resolved, resolved_at, resolved_by from vulnerabilities
               where ${where} and state in (${quoted(from)})`,
          sql`state = ${to}, is_resolved = ${resolved},
              resolved_at = ${resolved ? sql`case when old.is_resolved then old.resolved_at else now() end` : sql`null`},
              resolved_by = ${resolved ? sql`case when old.is_resolved then old.resolved_by else ${actor.userId}::int end` : sql`null`},
              state_changed_at = now(),
              state_reason = ${JUSTIFIED_STATES.includes(to) ? comment : null},
              accepted_by = ${accepted ? actor.userId : null}::int,
              accepted_until = ${accepted ? action.acceptedUntil! : null}::date`,
          history('state', sql`old.state`, sql`${to}`, comment),
          audit(
            sql`'Vulnérabilité #' || old.id || ' : « ' || ${labelOf('old.state')} || ' » → « ' || ${FINDING_STATE_LABELS[to]}::text || ' » (action groupée)'`,
            sql`jsonb_build_object('vulnerability_id', old.id, 'bulk', true, 'from', old.state, 'to', ${to}::text)`,
          ),
        );
  return { selected, changed, unchanged, refused: selected - changed - unchanged };
}

/**
 * Links the selection to a project (those already linked count as unchanged), or unlinks it (those not linked count
 * as unchanged): the project's gate as for one link ('edit': 404 out of reach, 403 read only), one set-based
 * statement, one audit event per finding linked or unlinked, and one line of the project's activity for the lot.
 */
async function linkProject(
  tx: TenantDb,
  where: SQL,
  selected: number,
  projectId: number,
  linking: boolean,
  actor: BulkActor,
  audit: (description: SQL, details: SQL, rows: string) => SQL,
): Promise<BulkResult> {
  const { project } = await gate.require(tx, actor.actor, projectId, 'edit');
  const done = `${linking ? 'liée au projet' : 'retirée du projet'} ${quotedTitle(project.name)} (action groupée)`;
  const audited = audit(
    sql`'Vulnérabilité #' || done.id || ' : ' || ${done}::text`,
    sql`jsonb_build_object('vulnerability_id', done.id, 'bulk', true, 'project_id', ${projectId}::bigint,
          'action', ${linking ? 'linked' : 'unlinked'}::text)`,
    'done',
  );
  // Linking: the selected findings not linked yet, kept from a concurrent delete (key share) while they are linked;
  // a concurrent link of the same one is skipped by the unique key.
  const statement = linking
    ? sql`
      with sel as (
             select id from vulnerabilities
              where ${where}
                and not exists (select 1 from project_vulnerabilities pv
                                 where pv.tenant_id = vulnerabilities.tenant_id and pv.project_id = ${projectId}
                                   and pv.vulnerability_id = vulnerabilities.id)
              for key share),
           done as (
             insert into project_vulnerabilities (tenant_id, project_id, vulnerability_id)
             select app_current_tenant(), ${projectId}, id from sel
             on conflict (tenant_id, project_id, vulnerability_id) do nothing
             returning vulnerability_id as id),
           au as (${audited})
      select count(*) as n from done`
    : sql`
      with done as (
             delete from project_vulnerabilities pv using vulnerabilities
              where pv.tenant_id = app_current_tenant() and pv.project_id = ${projectId}
                and vulnerabilities.tenant_id = pv.tenant_id and vulnerabilities.id = pv.vulnerability_id
                and ${where}
             returning pv.vulnerability_id as id),
           au as (${audited})
      select count(*) as n from done`;
  const changed = Number(rowsOf<{ n: string }>(await tx.execute(statement))[0]?.n ?? 0);
  if (changed > 0) {
    const e = changed > 1 ? 'es' : 'e';
    await gate.repo.record(tx, {
      projectId,
      userId: actor.userId,
      action: linking ? 'linked' : 'unlinked',
      objectType: 'project_vulnerability',
      objectId: null,
      summary: `${NUMBER.format(changed)} vulnérabilité${changed > 1 ? 's' : ''} ${linking ? `lié${e} au` : `retiré${e} du`} projet (action groupée)`,
    });
  }
  return { selected, changed, unchanged: selected - changed, refused: 0 };
}
