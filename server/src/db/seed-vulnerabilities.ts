import { inArray } from 'drizzle-orm';
import type { Db } from './client.ts';
import {
  assets,
  cves,
  FINDING_SEVERITIES,
  scans,
  threats,
  vulnerabilities,
  type AssetType,
  type FindingSeverity,
  type Scanner,
  type Severity,
} from './schema.ts';
import { DEMO_CVE_IDS } from './seed-cves.ts';
import { bestCvssOf } from '../domain/cve-records.ts';
import { ACME_ASSETS, HORIZON_ASSETS, PLACEMENT, type DemoAsset } from './seed-vulnerability-assets.ts';

/** Small deterministic generator (mulberry32): the demo is the same on every machine. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CVSS_BY_SEVERITY: Record<FindingSeverity, number | null> = {
  critical: 9.8,
  high: 7.8,
  medium: 5.4,
  low: 3.1,
  info: null,
  unrated: null,
};
const SEVERITY_CYCLE: Severity[] = ['high', 'medium', 'critical', 'medium', 'low', 'high', 'info', 'medium'];
const SERVICES: Partial<Record<AssetType, { port: number; protocol: string; service: string }>> = {
  network: { port: 443, protocol: 'tcp', service: 'https' },
  server: { port: 8443, protocol: 'tcp', service: 'https-alt' },
  application: { port: 443, protocol: 'tcp', service: 'https' },
  database: { port: 1521, protocol: 'tcp', service: 'oracle-tns' },
};

const MANUAL_FINDINGS: { title: string; severity: Severity; description: string; solution: string; asset: string }[] = [
  {
    title: 'Mot de passe par défaut sur l’interface d’administration',
    severity: 'critical',
    description: 'Le compte « admin » de l’interface web accepte toujours le mot de passe du constructeur.',
    solution: 'Changer le mot de passe et restreindre l’interface d’administration au réseau de gestion.',
    asset: 'nas-sauvegarde-01',
  },
  {
    title: 'Certificat TLS expiré',
    severity: 'medium',
    description: 'Le certificat présenté sur le port 443 a expiré ; les navigateurs affichent un avertissement.',
    solution: 'Renouveler le certificat et surveiller les dates d’expiration.',
    asset: 'app-portail-clients',
  },
  {
    title: 'Protocole SMBv1 activé',
    severity: 'high',
    description: 'Le serveur accepte encore les connexions SMBv1, exploitées par des rançongiciels.',
    solution: 'Désactiver SMBv1 (Set-SmbServerConfiguration -EnableSMB1Protocol $false).',
    asset: 'srv-fichiers-01',
  },
];

export const DEMO_THREATS: Record<
  'acme' | 'horizon',
  {
    title: string;
    type: string;
    severity: Severity;
    status: 'ACTIVE' | 'INVESTIGATING' | 'MITIGATED' | 'CLOSED';
    source: string;
    cve?: string;
    asset?: string;
    description: string;
  }[]
> = {
  acme: [
    {
      title: 'Campagne d’hameçonnage ciblant la direction financière',
      type: 'phishing',
      severity: 'high',
      status: 'INVESTIGATING',
      source: 'CERT-FR',
      description: 'Courriels usurpant un fournisseur et demandant un changement de RIB.',
    },
    {
      title: 'Exploitation active de FortiOS (CVE-2022-40684)',
      type: 'exploit',
      severity: 'critical',
      status: 'ACTIVE',
      source: 'CISA KEV',
      cve: 'CVE-2022-40684',
      asset: 'fw-perimetre-01',
      description: 'Des tentatives d’accès à l’interface d’administration sont observées dans les journaux.',
    },
    {
      title: 'Rançongiciel LockBit : indicateurs détectés sur le réseau',
      type: 'ransomware',
      severity: 'critical',
      status: 'MITIGATED',
      source: 'EDR',
      asset: 'srv-fichiers-01',
      description: 'Binaire bloqué par l’EDR ; poste isolé et réinstallé.',
    },
    {
      title: 'Force brute sur le VPN d’accès distant',
      type: 'brute_force',
      severity: 'medium',
      status: 'ACTIVE',
      source: 'SIEM',
      cve: 'CVE-2023-20269',
      asset: 'vpn-gw-01',
      description: 'Plus de 5 000 échecs d’authentification par heure depuis des adresses étrangères.',
    },
    {
      title: 'Fuite d’identifiants sur un forum clandestin',
      type: 'data_leak',
      severity: 'high',
      status: 'MITIGATED',
      source: 'Veille',
      description: 'Douze comptes de messagerie concernés ; mots de passe réinitialisés.',
    },
    {
      title: 'Clé USB inconnue branchée sur un poste de la comptabilité',
      type: 'insider',
      severity: 'low',
      status: 'CLOSED',
      source: 'Signalement interne',
      asset: 'poste-compta-07',
      description: 'Clé analysée : aucun contenu malveillant.',
    },
  ],
  horizon: [
    {
      title: 'Hameçonnage par SMS usurpant la banque (smishing)',
      type: 'phishing',
      severity: 'high',
      status: 'ACTIVE',
      source: 'Service client',
      description: 'Des clients reçoivent des SMS renvoyant vers un faux site de banque en ligne.',
    },
    {
      title: 'Faux site de banque en ligne enregistré',
      type: 'fraud',
      severity: 'high',
      status: 'INVESTIGATING',
      source: 'Veille',
      asset: 'app-banque-en-ligne',
      description: 'Nom de domaine proche du site officiel ; demande de retrait en cours.',
    },
    {
      title: 'Déni de service distribué sur la banque en ligne',
      type: 'ddos',
      severity: 'medium',
      status: 'MITIGATED',
      source: 'Hébergeur',
      asset: 'app-banque-en-ligne',
      description: 'Attaque absorbée par le service anti-DDoS de l’hébergeur.',
    },
    {
      title: 'Exploitation de l’appliance Ivanti CSA',
      type: 'exploit',
      severity: 'critical',
      status: 'ACTIVE',
      source: 'CISA KEV',
      cve: 'CVE-2024-8190',
      asset: 'vpn-agences',
      description: 'Vulnérabilité exploitée dans la nature ; correctif à appliquer en urgence.',
    },
    {
      title: 'Fraude au président visant la trésorerie',
      type: 'fraud',
      severity: 'high',
      status: 'MITIGATED',
      source: 'Trésorerie',
      description: 'Virement bloqué grâce à la procédure de double validation.',
    },
    {
      title: 'Logiciel espion bancaire ciblant les clients Android',
      type: 'malware',
      severity: 'medium',
      status: 'INVESTIGATING',
      source: 'CERT-FR',
      description: 'Application malveillante imitant l’application mobile de la banque.',
    },
  ],
};

const DAY = 86_400_000;

/** Demo assets, findings, scans and threats for each seeded tenant, pointing at real CVEs of the store. */
export async function seedVulnerabilityDemo(db: Db, tenants: { acme: string; horizon: string }): Promise<void> {
  const known = await db
    .select()
    .from(cves)
    .where(inArray(cves.cveId, [...DEMO_CVE_IDS]));
  const store = new Map(known.map((c) => [c.cveId, c]));
  const now = Date.now();
  await seedTenant(db, 'acme', tenants.acme, ACME_ASSETS, store, now, prng(20240601));
  await seedTenant(db, 'horizon', tenants.horizon, HORIZON_ASSETS, store, now, prng(19870415));
}

async function seedTenant(
  db: Db,
  key: 'acme' | 'horizon',
  tenantId: string,
  demoAssets: DemoAsset[],
  store: Map<string, typeof cves.$inferSelect>,
  now: number,
  random: () => number,
): Promise<void> {
  const uuid = () =>
    'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx'.replace(/[xy]/g, (c) =>
      (c === 'x' ? Math.floor(random() * 16) : 8 + Math.floor(random() * 4)).toString(16),
    );
  const ago = (maxDays: number, minDays = 0) => new Date(now - (minDays + random() * (maxDays - minDays)) * DAY);

  const assetRows = await db
    .insert(assets)
    .values(demoAssets.map((a) => ({ ...a, tenantId, createdAt: ago(90, 45), updatedAt: ago(40, 31) })))
    .returning({ id: assets.id, name: assets.name, assetType: assets.assetType });
  const byName = new Map(assetRows.map((a) => [a.name, a]));

  const scanners = key === 'acme' ? (['nmap', 'openvas', 'trivy'] as const) : (['openvas', 'nmap'] as const);
  const scanRows: { id: number; scanner: Scanner }[] = [];
  for (const [i, scanner] of scanners.entries()) {
    const completed = new Date(now - (25 - i * 9) * DAY);
    const [row] = await db
      .insert(scans)
      .values({
        tenantId,
        name: {
          nmap: 'Cartographie réseau du périmètre',
          openvas: 'Audit de vulnérabilités des serveurs',
          trivy: 'Analyse des images de conteneurs',
        }[scanner],
        scanner,
        target: scanner === 'trivy' ? 'registry.interne/portail:2.4' : key === 'acme' ? '10.0.0.0/16' : '172.16.0.0/16',
        status: 'COMPLETED',
        progress: 100,
        reportFormat: scanner === 'nmap' ? 'nmap-xml' : scanner === 'openvas' ? 'openvas-xml' : 'trivy-json',
        startedAt: new Date(completed.getTime() - 40 * 60_000),
        completedAt: completed,
        createdAt: new Date(completed.getTime() - 45 * 60_000),
        updatedAt: completed,
      })
      .returning({ id: scans.id, scanner: scans.scanner });
    scanRows.push(row!);
  }

  // Findings: the hand-placed KEV CVEs first, then the other demo CVEs spread over the assets.
  const pairs: { cveId: string; asset: string }[] = [];
  for (const cveId of DEMO_CVE_IDS) {
    const placed = PLACEMENT[cveId]?.[key];
    if (placed) for (const a of placed) pairs.push({ cveId, asset: a });
    else if (!PLACEMENT[cveId] && (key === 'acme' ? random() < 0.9 : random() < 0.3)) {
      pairs.push({ cveId, asset: demoAssets[Math.floor(random() * demoAssets.length)]!.name });
    }
  }
  const findings: (typeof vulnerabilities.$inferInsert)[] = pairs.map((p, i) => {
    const c = store.get(p.cveId);
    const fallback = PLACEMENT[p.cveId];
    const severity = c?.severity ?? fallback?.severity ?? SEVERITY_CYCLE[i % SEVERITY_CYCLE.length]!;
    const created = ago(30);
    const target = byName.get(p.asset)!;
    const scan = scanRows[i % (scanRows.length + 1)];
    const resolved = random() < 0.15;
    const net = SERVICES[target.assetType];
    return {
      tenantId,
      assetId: target.id,
      scanId: scan?.id ?? null,
      cveId: p.cveId,
      findingKey: p.cveId,
      title: c?.title || fallback?.title || `Vulnérabilité ${p.cveId}`,
      description: c?.description ?? '',
      severity,
      // The CVE store's score names its scorer; a store without one (or without the CVE) leaves the scanner's.
      severitySource: c?.cvssSource ?? (scan ? 'scanner' : 'analyst'),
      cvssScore: c ? bestCvssOf(c).score : CVSS_BY_SEVERITY[severity],
      cvssVector: c ? bestCvssOf(c).vector : null,
      kev: c?.kev ?? fallback !== undefined,
      cweIds: c?.cweIds ?? [],
      port: net?.port ?? null,
      protocol: net?.protocol ?? null,
      service: net?.service ?? null,
      solution: 'Appliquer le correctif de l’éditeur ou la mesure de contournement publiée.',
      source: scan?.scanner ?? 'manual',
      isResolved: resolved,
      // Some open findings are already being worked on (derived from the index: the seed's random draws stay).
      state: resolved ? 'verified' : (['new', 'confirmed', 'in_progress'] as const)[i % 5 < 3 ? i % 5 : 0],
      resolvedAt: resolved ? new Date(Math.min(now, created.getTime() + (1 + random() * 5) * DAY)) : null,
      firstSeen: created,
      lastSeen: new Date(Math.min(now, created.getTime() + random() * 3 * DAY)),
      createdAt: created,
      updatedAt: created,
    };
  });
  for (const m of key === 'acme'
    ? MANUAL_FINDINGS
    : MANUAL_FINDINGS.slice(0, 1).map((m) => ({ ...m, asset: 'poste-guichet-03' }))) {
    const created = ago(30);
    findings.push({
      tenantId,
      assetId: byName.get(m.asset)!.id,
      findingKey: `manual:${uuid()}`,
      title: m.title,
      description: m.description,
      severity: m.severity,
      severitySource: 'analyst',
      cvssScore: CVSS_BY_SEVERITY[m.severity],
      solution: m.solution,
      source: 'manual',
      firstSeen: created,
      lastSeen: created,
      createdAt: created,
      updatedAt: created,
    });
  }
  await db.insert(vulnerabilities).values(findings);

  // Each scan's summary counts its own findings.
  for (const s of scanRows) {
    const mine = findings.filter((f) => f.scanId === s.id);
    const bySeverity = Object.fromEntries(
      FINDING_SEVERITIES.map((sev) => [sev, mine.filter((f) => f.severity === sev).length]),
    );
    await db
      .update(scans)
      .set({
        summary: {
          findings: mine.length,
          created: mine.length,
          updated: 0,
          assets_created: 0,
          by_severity: bySeverity,
        },
      })
      .where(inArray(scans.id, [s.id]));
  }

  await db.insert(threats).values(
    DEMO_THREATS[key].map((t) => {
      const created = ago(30, 2);
      const mitigated = t.status === 'MITIGATED';
      return {
        tenantId,
        title: t.title,
        description: t.description,
        threatType: t.type,
        severity: t.severity,
        status: t.status,
        isMitigated: mitigated,
        mitigatedAt: mitigated ? new Date(created.getTime() + 2 * DAY) : null,
        source: t.source,
        cveId: t.cve ?? null,
        assetId: t.asset ? byName.get(t.asset)!.id : null,
        createdAt: created,
        updatedAt: created,
      };
    }),
  );
}
