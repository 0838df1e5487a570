/**
 * A project's links to the tenant's assets, findings and threats (docs/api-projects.md): every link reaches its
 * project through the gate; linking names an existing object or makes a new one as its own API makes it; some
 * changes are made through the link to the object itself. Every write appends to the project's activity.
 */
import type { TenantDb } from '../../db/tenant-scope.ts';
import { notFound } from '../../domain/errors.ts';
import { setResolved } from '../finding-lifecycle.ts';
import { mitigation } from '../../domain/threat-mitigation.ts';
import type { Actor } from '../../policies/index.ts';
import { AssetsRepository, type AssetValues } from '../../repositories/assets.ts';
import {
  foreignKeyViolation,
  ProjectLinksRepository,
  type LinkPage,
  type LinkRef,
  type LinkType,
  type ProjectAssetRow,
  type ProjectThreatRow,
  type ProjectVulnerabilityRow,
  type VulnerabilityLinkFilters,
} from '../../repositories/project-links.ts';
import { ThreatsRepository } from '../../repositories/threats.ts';
import { VulnerabilitiesRepository } from '../../repositories/vulnerabilities.ts';
import { validateAsset, type AssetBody } from '../../schemas/assets.ts';
import { invalid } from '../../schemas/fields.ts';
import {
  LIMITS,
  LINK_MESSAGES as MESSAGES,
  type FindingLinkBody,
  type ThreatLinkBody,
} from '../../schemas/projects/links.ts';
import { validateThreat } from '../../schemas/threats.ts';
import { MESSAGES as FINDING_MESSAGES, validateWrite } from '../../schemas/vulnerabilities.ts';
import { unlessDuplicateAsset } from '../assets.ts';
import { createThreat } from '../threats.ts';
import { unlessDuplicate } from '../unique-writes.ts';
import { saveFinding } from '../vulnerabilities.ts';
import { ProjectGate, quoted, type ProjectJournal, type ProjectNeed } from './access.ts';

/** What a link points at, as the activity names it. */
export interface Target {
  id: number;
  title: string;
}

/** A change made through a link, for the project's activity: its action and summary. */
export interface Change {
  action: string;
  summary: string;
}

/** Who links: the actor, and the tenant a new threat is made in. */
export interface Linker {
  userId: number;
  tenant: string;
}

type Paging = { projectId: number | undefined; limit: number; offset: number };
type FindingFilters = Pick<VulnerabilityLinkFilters, 'severities' | 'isResolved'>;

/** One kind of link: its rows, its targets (found by id, or made from a body), and its wording. */
export interface LinkKind<Row, Body, Filters> {
  type: LinkType;
  /** One link with its target, as the answers show it. */
  row: (tx: TenantDb, linkId: number) => Promise<Row | undefined>;
  page: (tx: TenantDb, actor: Actor, paging: Paging, filters: Filters) => Promise<LinkPage<Row>>;
  /** The body field naming an existing target, and the messages about it. */
  idField: string;
  unknown: string;
  alreadyLinked: string;
  /** "Actif « x » lié au projet", "Menace « x » liée au projet". */
  noun: string;
  feminine: boolean;
  /** The tenant's existing target of this id. */
  find: (tx: TenantDb, id: number) => Promise<Target | undefined>;
  /** A new target made from the body (the gate has let the caller through). */
  create: (tx: TenantDb, body: Body, linker: Linker) => Promise<Target>;
}

export class ProjectLinks {
  readonly repo = new ProjectLinksRepository();
  readonly gate = new ProjectGate();
  private readonly assetRepo = new AssetsRepository();
  private readonly findingRepo = new VulnerabilitiesRepository();
  private readonly threatRepo = new ThreatsRepository();

  readonly assets: LinkKind<ProjectAssetRow, AssetBody, object> = {
    type: 'asset',
    row: (tx, linkId) => this.repo.assetLink(tx, linkId),
    page: (tx, actor, paging) => this.repo.assetPage(tx, actor, paging),
    idField: 'asset_id',
    unknown: MESSAGES.assetUnknown,
    alreadyLinked: MESSAGES.assetLinked,
    noun: 'Actif',
    feminine: false,
    find: async (tx, id) => {
      const asset = await this.assetRepo.find(tx, id);
      return asset && { id: asset.id, title: asset.name };
    },
    // Checked as /api/assets/ checks a new asset.
    create: async (tx, body) => {
      const values = validateAsset(body, true);
      const created = await unlessDuplicateAsset(this.assetRepo.create(tx, { ...values, name: values.name! }));
      return { id: created.id, title: created.name };
    },
  };

  readonly findings: LinkKind<ProjectVulnerabilityRow, FindingLinkBody, FindingFilters> = {
    type: 'vulnerability',
    row: (tx, linkId) => this.repo.vulnerabilityLink(tx, linkId),
    page: (tx, actor, paging, filters) => this.repo.vulnerabilityPage(tx, actor, { ...paging, ...filters }),
    idField: 'vulnerability_id',
    unknown: MESSAGES.findingUnknown,
    alreadyLinked: MESSAGES.findingLinked,
    noun: 'Vulnérabilité',
    feminine: true,
    find: async (tx, id) => {
      const finding = await this.findingRepo.find(tx, id);
      return finding && { id: finding.id, title: finding.title };
    },
    // Made as POST /api/vulnerabilities/vulnerabilities/ makes a finding: CVE facts, the tenant's asset, the key.
    create: async (tx, body, linker) => {
      const input = validateWrite(body);
      const options = { requireTitle: true, userId: linker.userId };
      const created = await unlessDuplicate(saveFinding(tx, input, undefined, options), FINDING_MESSAGES.duplicate);
      return { id: created.id, title: created.title };
    },
  };

  readonly threats: LinkKind<ProjectThreatRow, ThreatLinkBody, object> = {
    type: 'threat',
    row: (tx, linkId) => this.repo.threatLink(tx, linkId),
    page: (tx, actor, paging) => this.repo.threatPage(tx, actor, paging),
    idField: 'threat_id',
    unknown: MESSAGES.threatUnknown,
    alreadyLinked: MESSAGES.threatLinked,
    noun: 'Menace',
    feminine: true,
    find: async (tx, id) => {
      const threat = await this.threatRepo.find(tx, id);
      return threat && { id: threat.id, title: threat.title };
    },
    // Checked as /api/threats/ checks a new threat, its status and mitigation kept consistent.
    create: async (tx, body, linker) => {
      const created = await createThreat(tx, linker.tenant, validateThreat(body, false), linker.userId);
      return { id: created.id, title: created.title };
    },
  };

  /** The link's project through the gate: 404 when the link or its project is out of reach. */
  async reach(tx: TenantDb, actor: Actor, type: LinkType, linkId: number, need: ProjectNeed): Promise<LinkRef> {
    const ref = await this.repo.ref(tx, type, linkId);
    if (!ref) throw notFound();
    await this.gate.require(tx, actor, ref.projectId, need);
    return ref;
  }

  /** A link as the answers show it (404 when gone). */
  async row<Row>(tx: TenantDb, kind: LinkKind<Row, never, never>, linkId: number): Promise<Row> {
    const row = await kind.row(tx, linkId);
    if (!row) throw notFound();
    return row;
  }

  private record(tx: TenantDb, journal: ProjectJournal, type: LinkType, ref: Omit<LinkRef, 'targetId'>, done: Change) {
    const { projectId, id: objectId } = ref;
    return journal.record(tx, { projectId, objectType: `project_${type}`, objectId, ...done });
  }

  /**
   * Links the target the body names by its id (any other fields beside it are ignored), else a new one made from
   * the body; a second link of the same object → 409 on the id field. Answers the link's id.
   */
  async link<Body>(
    tx: TenantDb,
    journal: ProjectJournal,
    kind: LinkKind<unknown, Body, never>,
    projectId: number,
    body: Body,
    linker: Linker,
  ): Promise<number> {
    await this.gate.require(tx, journal.actor, projectId, 'edit');
    const chosen = (body as Record<string, unknown>)[kind.idField] as number | null | undefined;
    const existing = chosen !== undefined && chosen !== null;
    let target: Target | undefined;
    if (existing) {
      target = chosen >= 1 ? await kind.find(tx, chosen) : undefined;
      if (!target) throw invalid(kind.idField, kind.unknown);
    } else target = await kind.create(tx, body, linker);
    const linkId = await unlessDuplicate(
      this.repo.link(tx, kind.type, projectId, target.id),
      kind.alreadyLinked,
      kind.idField,
    ).catch((err: unknown) => {
      // The composite foreign key refuses another tenant's id (already checked; a race lands here).
      throw foreignKeyViolation(err) !== undefined ? invalid(kind.idField, kind.unknown) : err;
    });
    const e = kind.feminine ? 'e' : '';
    const [action, done] = existing ? ['linked', `lié${e}`] : ['created', `créé${e} et lié${e}`];
    const summary = `${kind.noun} ${quoted(target.title)} ${done} au projet`;
    await this.record(tx, journal, kind.type, { id: linkId, projectId }, { action, summary });
    return linkId;
  }

  async unlink(tx: TenantDb, journal: ProjectJournal, kind: LinkKind<unknown, never, never>, linkId: number) {
    const ref = await this.reach(tx, journal.actor, kind.type, linkId, 'edit');
    const title = (await kind.find(tx, ref.targetId))?.title ?? `#${ref.targetId}`;
    if (!(await this.repo.unlink(tx, kind.type, linkId))) throw notFound();
    const summary = `${kind.noun} ${quoted(title)} retiré${kind.feminine ? 'e' : ''} du projet`;
    await this.record(tx, journal, kind.type, ref, { action: 'unlinked', summary });
  }

  /** A change through the link (the gate's 'edit'): touches the link and records the activity when one is made. */
  async change(
    tx: TenantDb,
    journal: ProjectJournal,
    type: LinkType,
    linkId: number,
    fn: (targetId: number) => Promise<Change | null>,
  ): Promise<void> {
    const ref = await this.reach(tx, journal.actor, type, linkId, 'edit');
    const done = await fn(ref.targetId);
    if (!done) return;
    await this.repo.touch(tx, type, linkId);
    await this.record(tx, journal, type, ref, done);
  }

  /** PUT/PATCH of a linked asset: the asset itself changes. */
  async updateAsset(tx: TenantDb, assetId: number, values: AssetValues): Promise<Change> {
    const updated = await unlessDuplicateAsset(this.assetRepo.update(tx, assetId, values));
    if (!updated) throw notFound();
    return { action: 'updated', summary: `Actif ${quoted(updated.name)} modifié` };
  }

  /** Resolves or reopens a linked finding; resolving twice keeps the first resolution's date and author. */
  async resolveFinding(tx: TenantDb, userId: number, findingId: number, resolved: boolean): Promise<Change | null> {
    const moved = await setResolved(tx, findingId, resolved, userId);
    if (!moved) throw notFound();
    if (moved.from === moved.row.state) return null;
    const summary = `Vulnérabilité ${quoted(moved.row.title)} ${resolved ? 'résolue' : 'rouverte'}`;
    return { action: resolved ? 'resolved' : 'reopened', summary };
  }

  /** As /api/threats/{id}/mark_mitigated/: status MITIGATED; a first mitigation records when and by whom. */
  async mitigateThreat(tx: TenantDb, userId: number, threatId: number): Promise<Change | null> {
    const threat = await this.threatRepo.find(tx, threatId);
    if (!threat) throw notFound();
    if (threat.isMitigated && threat.status === 'MITIGATED') return null;
    await this.threatRepo.update(tx, threat.id, mitigation({ status: 'MITIGATED' }, threat, userId, false));
    return { action: 'mitigated', summary: `Menace ${quoted(threat.title)} atténuée` };
  }

  /** The tenant's findings on a linked asset, newest first, bounded. */
  findingsOnAsset(tx: TenantDb, assetId: number) {
    const ordering = { field: 'created_at', desc: true } as const;
    return this.findingRepo.page(tx, { filters: { assetId }, ordering, limit: LIMITS.assetLists, offset: 0 });
  }

  /** The tenant's threats on a linked asset, bounded. */
  threatsOnAsset(tx: TenantDb, assetId: number) {
    return this.repo.threatsOnAsset(tx, assetId, LIMITS.assetLists);
  }
}
