import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from './client.ts';
import {
  assets,
  correctiveActions,
  projectActivity,
  projectAssets,
  projectMembers,
  projects,
  projectTasks,
  projectThreats,
  projectVulnerabilities,
  remediationPlans,
  risks,
  threats,
  users,
  vulnerabilities,
  type ProjectPriority,
  type ProjectTaskStatus,
  type RiskStatus,
  type RiskTreatment,
  type TeamRole,
} from './schema.ts';
import { completedAt, planProgress, residualScores } from '../domain/risk-scoring.ts';

const DAY = 86_400_000;

interface DemoAction {
  title: string;
  progress: number;
  /** Days from today (negative: in the past). */
  due: number;
  assignee: string;
}

interface DemoRisk {
  title: string;
  description: string;
  scenario: string;
  asset?: string;
  threat?: string;
  likelihood: number;
  impact: number;
  treatment: RiskTreatment;
  status: RiskStatus;
  owner: string;
  plan?: {
    title: string;
    description: string;
    targetLikelihood: number;
    targetImpact: number;
    due: number;
    actions: DemoAction[];
  };
}

interface DemoTask {
  title: string;
  description: string;
  status: ProjectTaskStatus;
  priority: ProjectPriority;
  progress: number;
  due: number;
  assignee: string;
}

interface DemoActivity {
  /** Days ago. */
  ago: number;
  user: string;
  action: string;
  objectType: string;
  /** The team member the entry is about, for team changes. */
  member?: string;
  summary: string;
}

interface DemoProject {
  name: string;
  description: string;
  status: 'IN_PROGRESS' | 'PLANNING';
  priority: ProjectPriority;
  start: number;
  deadline: number;
  createdAgo: number;
  owner: string;
  team: [string, TeamRole][];
  assets: string[];
  /** How many open findings of the linked assets to link. */
  findings: number;
  threats: string[];
  risks: DemoRisk[];
  tasks: DemoTask[];
  activity: DemoActivity[];
}

const ACME_PROJECT: DemoProject = {
  name: 'Audit de sécurité — Vernier Distribution (portail clients et accès distants)',
  description:
    'Mission d’audit pour Vernier Distribution : tests d’intrusion externes du portail clients, revue de ' +
    'configuration du pare-feu périmétrique et de la passerelle VPN, appréciation des risques selon ISO 27005 ' +
    'et suivi du plan de remédiation jusqu’à la restitution au comité de direction.',
  status: 'IN_PROGRESS',
  priority: 'HIGH',
  start: -30,
  deadline: 45,
  createdAgo: 35,
  owner: 'manager',
  team: [
    ['manager', 'ADMIN'],
    ['analyste', 'MEMBER'],
  ],
  assets: ['fw-perimetre-01', 'vpn-gw-01', 'srv-web-01', 'app-portail-clients'],
  findings: 5,
  threats: ['Exploitation active de FortiOS (CVE-2022-40684)'],
  risks: [
    {
      title: 'Compromission du pare-feu périmétrique par exploitation de FortiOS',
      description: 'Prise de contrôle de l’équipement de bordure et pivot vers le réseau interne.',
      scenario:
        'Un attaquant opportuniste exploite le contournement d’authentification de l’interface ' +
        'd’administration (CVE-2022-40684), exposée sur Internet.',
      asset: 'fw-perimetre-01',
      threat: 'Exploitation active de FortiOS (CVE-2022-40684)',
      likelihood: 4,
      impact: 4,
      treatment: 'REDUCE',
      status: 'IN_TREATMENT',
      owner: 'manager',
      plan: {
        title: 'Sécurisation du pare-feu périmétrique',
        description: 'Correctif éditeur, restriction de l’administration et supervision.',
        targetLikelihood: 1,
        targetImpact: 3,
        due: 20,
        actions: [
          { title: 'Appliquer le correctif FortiOS 7.2.x', progress: 100, due: -12, assignee: 'analyste' },
          {
            title: 'Restreindre l’interface d’administration au réseau d’administration',
            progress: 40,
            due: -2,
            assignee: 'analyste',
          },
          {
            title: 'Superviser les connexions d’administration dans le SIEM',
            progress: 0,
            due: 15,
            assignee: 'manager',
          },
        ],
      },
    },
    {
      title: 'Accès non autorisé au SI par force brute sur le VPN',
      description: 'Usurpation d’un compte de collaborateur et accès distant au réseau interne.',
      scenario:
        'Une source de risque organisée mène des attaques par dictionnaire sur la passerelle VPN ' +
        'depuis des adresses étrangères.',
      asset: 'vpn-gw-01',
      likelihood: 3,
      impact: 3,
      treatment: 'REDUCE',
      status: 'IN_TREATMENT',
      owner: 'analyste',
      plan: {
        title: 'Renforcement de l’authentification des accès distants',
        description: 'Authentification multifacteur et blocage des tentatives répétées.',
        targetLikelihood: 1,
        targetImpact: 3,
        due: 10,
        actions: [
          { title: 'Activer l’authentification multifacteur sur le VPN', progress: 100, due: -5, assignee: 'analyste' },
          {
            title: 'Bloquer les adresses après cinq échecs d’authentification',
            progress: 40,
            due: -1,
            assignee: 'analyste',
          },
        ],
      },
    },
    {
      title: 'Fuite de données clients par injection sur le portail',
      description: 'Atteinte à la confidentialité des données personnelles des clients (RGPD).',
      scenario: 'Un attaquant exploite une injection SQL du portail clients pour extraire la base des comptes.',
      asset: 'app-portail-clients',
      likelihood: 2,
      impact: 4,
      treatment: 'REDUCE',
      status: 'ASSESSED',
      owner: 'manager',
    },
    {
      title: 'Indisponibilité du site web par déni de service',
      description: 'Interruption de la vitrine commerciale pendant quelques heures.',
      scenario: 'Un déni de service distribué sature la bande passante du site vitrine.',
      asset: 'srv-web-01',
      likelihood: 2,
      impact: 2,
      treatment: 'ACCEPT',
      status: 'MONITORED',
      owner: 'manager',
    },
  ],
  tasks: [
    {
      title: 'Cartographie des actifs exposés sur Internet',
      description: 'Recensement des services exposés et validation du périmètre avec le client.',
      status: 'DONE',
      priority: 'HIGH',
      progress: 100,
      due: -20,
      assignee: 'analyste',
    },
    {
      title: 'Tests d’intrusion externes du portail clients',
      description: 'Tests en boîte grise selon le guide OWASP, comptes de test fournis par le client.',
      status: 'IN_PROGRESS',
      priority: 'HIGH',
      progress: 60,
      due: 10,
      assignee: 'analyste',
    },
    {
      title: 'Revue de configuration du pare-feu et du VPN',
      description: 'Règles de filtrage, interfaces d’administration, politique d’authentification.',
      status: 'IN_PROGRESS',
      priority: 'CRITICAL',
      progress: 30,
      due: -3,
      assignee: 'analyste',
    },
    {
      title: 'Revue des comptes à privilèges de l’Active Directory',
      description: 'En attente des extractions demandées à l’équipe infrastructure du client.',
      status: 'BLOCKED',
      priority: 'MEDIUM',
      progress: 10,
      due: 20,
      assignee: 'manager',
    },
    {
      title: 'Rédaction du rapport d’audit et restitution',
      description: 'Synthèse managériale, constats détaillés et plan de remédiation priorisé.',
      status: 'TODO',
      priority: 'MEDIUM',
      progress: 0,
      due: 45,
      assignee: 'manager',
    },
  ],
  activity: [
    { ago: 35, user: 'manager', action: 'created', objectType: 'project', summary: '' },
    {
      ago: 35,
      user: 'manager',
      action: 'member_added',
      objectType: 'team_member',
      member: 'analyste',
      summary: 'Membre Marc Lefèvre ajouté (MEMBER)',
    },
    {
      ago: 20,
      user: 'analyste',
      action: 'updated',
      objectType: 'task',
      summary: 'Tâche « Cartographie des actifs exposés sur Internet » terminée',
    },
    {
      ago: 14,
      user: 'manager',
      action: 'created',
      objectType: 'risk',
      summary: 'Risque « Compromission du pare-feu périmétrique par exploitation de FortiOS » créé',
    },
    {
      ago: 12,
      user: 'analyste',
      action: 'progress',
      objectType: 'corrective_action',
      summary: 'Action « Appliquer le correctif FortiOS 7.2.x » : 100 %',
    },
    {
      ago: 2,
      user: 'analyste',
      action: 'progress',
      objectType: 'task',
      summary: 'Tâche « Tests d’intrusion externes du portail clients » : 60 %',
    },
  ],
};

const HORIZON_PROJECT: DemoProject = {
  name: 'Mise en conformité DORA — gestion des risques TIC',
  description:
    'Cadrage de la mise en conformité au règlement DORA : inventaire des fonctions critiques, appréciation des ' +
    'risques TIC du cœur bancaire et de la banque en ligne, plan de tests de résilience.',
  status: 'PLANNING',
  priority: 'MEDIUM',
  start: 14,
  deadline: 180,
  createdAgo: 6,
  owner: 'manager',
  team: [
    ['manager', 'ADMIN'],
    ['lecteur', 'VIEWER'],
  ],
  assets: ['srv-core-banking', 'app-banque-en-ligne'],
  findings: 0,
  threats: [],
  risks: [
    {
      title: 'Interruption prolongée du cœur bancaire',
      description: 'Indisponibilité de la tenue de comptes au-delà de la durée maximale tolérable.',
      scenario: 'Un rançongiciel chiffre les serveurs du cœur bancaire et leurs sauvegardes en ligne.',
      asset: 'srv-core-banking',
      likelihood: 2,
      impact: 4,
      treatment: 'REDUCE',
      status: 'IDENTIFIED',
      owner: 'manager',
    },
  ],
  tasks: [
    {
      title: 'Inventaire des fonctions critiques ou importantes',
      description: 'Atelier avec les métiers et la DSI.',
      status: 'TODO',
      priority: 'HIGH',
      progress: 0,
      due: 30,
      assignee: 'manager',
    },
    {
      title: 'Recensement des prestataires TIC tiers',
      description: 'Registre d’informations exigé par DORA.',
      status: 'TODO',
      priority: 'MEDIUM',
      progress: 0,
      due: 60,
      assignee: 'manager',
    },
  ],
  activity: [{ ago: 6, user: 'manager', action: 'created', objectType: 'project', summary: '' }],
};

/**
 * Demo projects: one audit in progress for Acme Sécurité (team, links to its seeded assets, findings and threat,
 * ISO 27005 risks with remediation plans, tasks, activity) and a smaller one being planned for Banque Horizon.
 * Runs in the seed's transaction, after the vulnerability demo it links to; dates are relative to today.
 */
export async function seedProjectDemo(db: Db, tenants: { acme: string; horizon: string }): Promise<void> {
  const people = await db
    .select({ id: users.id, username: users.username })
    .from(users)
    .where(inArray(users.username, ['admin', 'manager', 'analyste', 'lecteur']));
  const userIds = new Map(people.map((u) => [u.username, u.id]));
  const now = Date.now();
  await seedProject(db, tenants.acme, ACME_PROJECT, userIds, now);
  await seedProject(db, tenants.horizon, HORIZON_PROJECT, userIds, now);
}

async function seedProject(
  db: Db,
  tenantId: string,
  demo: DemoProject,
  userIds: Map<string, number>,
  now: number,
): Promise<void> {
  const day = (offset: number) => new Date(now + offset * DAY).toISOString().slice(0, 10);
  const at = (ago: number) => new Date(now - ago * DAY);
  const user = (username: string) => userIds.get(username)!;

  const [project] = await db
    .insert(projects)
    .values({
      tenantId,
      name: demo.name,
      description: demo.description,
      status: demo.status,
      priority: demo.priority,
      startDate: day(demo.start),
      deadline: day(demo.deadline),
      ownerId: user(demo.owner),
      createdAt: at(demo.createdAgo),
      updatedAt: at(Math.min(...demo.activity.map((a) => a.ago))),
    })
    .returning({ id: projects.id });
  const projectId = project!.id;

  const lastActive = (username: string) => {
    const mine = demo.activity.filter((a) => a.user === username).map((a) => a.ago);
    return mine.length > 0 ? at(Math.min(...mine)) : null;
  };
  await db.insert(projectMembers).values(
    demo.team.map(([username, role]) => ({
      tenantId,
      projectId,
      userId: user(username),
      role,
      lastActiveAt: lastActive(username),
      createdAt: at(demo.createdAgo),
    })),
  );

  const assetRows = await db
    .select({ id: assets.id, name: assets.name })
    .from(assets)
    .where(and(eq(assets.tenantId, tenantId), inArray(assets.name, demo.assets)));
  const assetIds = new Map(assetRows.map((a) => [a.name, a.id]));
  if (assetRows.length > 0) {
    await db
      .insert(projectAssets)
      .values(assetRows.map((a) => ({ tenantId, projectId, assetId: a.id, createdAt: at(demo.createdAgo - 1) })));
  }
  if (demo.findings > 0 && assetRows.length > 0) {
    const findings = await db
      .select({ id: vulnerabilities.id })
      .from(vulnerabilities)
      .where(
        and(
          eq(vulnerabilities.tenantId, tenantId),
          inArray(
            vulnerabilities.assetId,
            assetRows.map((a) => a.id),
          ),
        ),
      )
      .orderBy(asc(vulnerabilities.id))
      .limit(demo.findings);
    if (findings.length > 0) {
      await db
        .insert(projectVulnerabilities)
        .values(findings.map((f) => ({ tenantId, projectId, vulnerabilityId: f.id, createdAt: at(20) })));
    }
  }
  const threatRows =
    demo.threats.length === 0
      ? []
      : await db
          .select({ id: threats.id, title: threats.title })
          .from(threats)
          .where(and(eq(threats.tenantId, tenantId), inArray(threats.title, demo.threats)));
  const threatIds = new Map(threatRows.map((t) => [t.title, t.id]));
  if (threatRows.length > 0) {
    await db
      .insert(projectThreats)
      .values(threatRows.map((t) => ({ tenantId, projectId, threatId: t.id, createdAt: at(20) })));
  }

  for (const r of demo.risks) {
    // Residual scores follow the contract's rule from the plan's targets and its actions' mean progress.
    const progress = planProgress(r.plan?.actions.map((a) => a.progress) ?? []);
    const residual = residualScores(
      r,
      r.plan ? { targetLikelihood: r.plan.targetLikelihood, targetImpact: r.plan.targetImpact } : null,
      progress,
    );
    const [risk] = await db
      .insert(risks)
      .values({
        tenantId,
        projectId,
        title: r.title,
        description: r.description,
        scenario: r.scenario,
        assetId: r.asset ? (assetIds.get(r.asset) ?? null) : null,
        threatId: r.threat ? (threatIds.get(r.threat) ?? null) : null,
        likelihood: r.likelihood,
        impact: r.impact,
        residualLikelihood: residual.likelihood,
        residualImpact: residual.impact,
        treatment: r.treatment,
        status: r.status,
        ownerId: user(r.owner),
        createdAt: at(14),
        updatedAt: at(2),
      })
      .returning({ id: risks.id });
    if (!r.plan) continue;
    const [plan] = await db
      .insert(remediationPlans)
      .values({
        tenantId,
        riskId: risk!.id,
        title: r.plan.title,
        description: r.plan.description,
        status: 'IN_PROGRESS',
        targetLikelihood: r.plan.targetLikelihood,
        targetImpact: r.plan.targetImpact,
        ownerId: user(r.owner),
        dueDate: day(r.plan.due),
        createdAt: at(14),
        updatedAt: at(2),
      })
      .returning({ id: remediationPlans.id });
    await db.insert(correctiveActions).values(
      r.plan.actions.map((a) => ({
        tenantId,
        planId: plan!.id,
        title: a.title,
        assigneeId: user(a.assignee),
        dueDate: day(a.due),
        progress: a.progress,
        completedAt: completedAt(a.progress, null, at(Math.max(0, -a.due))),
        createdAt: at(14),
        updatedAt: at(2),
      })),
    );
  }

  await db.insert(projectTasks).values(
    demo.tasks.map((t) => ({
      tenantId,
      projectId,
      title: t.title,
      description: t.description,
      status: t.status,
      priority: t.priority,
      assigneeId: user(t.assignee),
      dueDate: day(t.due),
      progress: t.progress,
      completedAt: completedAt(t.progress, null, at(Math.max(0, -t.due))),
      createdAt: at(demo.createdAgo - 1),
      updatedAt: at(2),
    })),
  );

  await db.insert(projectActivity).values(
    demo.activity.map((a) => ({
      tenantId,
      projectId,
      userId: user(a.user),
      action: a.action,
      objectType: a.objectType,
      objectId: a.member ? user(a.member) : a.objectType === 'project' ? projectId : null,
      summary: a.summary || `Projet « ${demo.name} » créé`,
      createdAt: at(a.ago),
    })),
  );
}
