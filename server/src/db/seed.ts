import { count } from 'drizzle-orm';
import type { Db } from './client.ts';
import { memberships, tenants, users, type MembershipRole } from './schema.ts';
import { seedCveReference } from './seed-cves.ts';
import { seedVulnerabilityDemo } from './seed-vulnerabilities.ts';
import { seedProjectDemo } from './seed-projects.ts';
import { seedBlogDemo } from './seed-blog.ts';
import { seedNotificationDemo } from './seed-notifications.ts';
import { hashPassword, randomPassword } from '../lib/password.ts';

export interface SeededAccount {
  username: string;
  email: string;
  label: string;
  password: string;
}

const DEMO_TENANTS = [
  {
    key: 'acme',
    name: 'Acme Sécurité',
    domain: 'acme-securite.fr',
    subscriptionPlan: 'Enterprise',
    contactEmail: 'rssi@acme-securite.fr',
  },
  {
    key: 'horizon',
    name: 'Banque Horizon',
    domain: 'banque-horizon.fr',
    subscriptionPlan: 'Business',
    contactEmail: 'securite@banque-horizon.fr',
  },
] as const;

type TenantKey = (typeof DEMO_TENANTS)[number]['key'];

const DEMO_USERS: {
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  label: string;
  isSuperuser?: boolean;
  isStaff?: boolean;
  memberships: [TenantKey, MembershipRole][];
}[] = [
  {
    username: 'admin',
    email: 'admin@vigie.local',
    firstName: 'Camille',
    lastName: 'Laurent',
    label: 'superuser',
    isSuperuser: true,
    isStaff: true,
    memberships: [
      ['acme', 'admin'],
      ['horizon', 'admin'],
    ],
  },
  {
    username: 'manager',
    email: 'claire.dubois@acme-securite.fr',
    firstName: 'Claire',
    lastName: 'Dubois',
    label: 'staff manager',
    isStaff: true,
    memberships: [
      ['acme', 'manager'],
      ['horizon', 'manager'],
    ],
  },
  {
    username: 'analyste',
    email: 'marc.lefevre@acme-securite.fr',
    firstName: 'Marc',
    lastName: 'Lefèvre',
    label: 'user',
    memberships: [['acme', 'user']],
  },
  {
    username: 'lecteur',
    email: 'sophie.moreau@banque-horizon.fr',
    firstName: 'Sophie',
    lastName: 'Moreau',
    label: 'viewer',
    memberships: [['horizon', 'readonly']],
  },
];

export async function isSeeded(db: Db): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(tenants);
  return (row?.n ?? 0) > 0;
}

/**
 * Demo data for a fresh database. Runs in one transaction, so a crash leaves either
 * everything or nothing. Returns the accounts with their clear-text passwords, to print once.
 */
export async function seedDemoData(db: Db, opts: { password?: string | undefined } = {}): Promise<SeededAccount[]> {
  return db.transaction(async (tx) => {
    const tenantIds = new Map<TenantKey, string>();
    for (const t of DEMO_TENANTS) {
      const [row] = await tx
        .insert(tenants)
        .values({ name: t.name, domain: t.domain, subscriptionPlan: t.subscriptionPlan, contactEmail: t.contactEmail })
        .returning({ id: tenants.id });
      tenantIds.set(t.key, row!.id);
    }
    const accounts: SeededAccount[] = [];
    for (const u of DEMO_USERS) {
      const password = opts.password ?? randomPassword();
      const firstTenant = u.memberships[0]![0];
      const [row] = await tx
        .insert(users)
        .values({
          username: u.username,
          email: u.email,
          firstName: u.firstName,
          lastName: u.lastName,
          passwordHash: await hashPassword(password),
          isStaff: u.isStaff ?? false,
          isSuperuser: u.isSuperuser ?? false,
          defaultTenantId: tenantIds.get(firstTenant),
        })
        .returning({ id: users.id });
      for (const [tenant, role] of u.memberships) {
        await tx.insert(memberships).values({ tenantId: tenantIds.get(tenant)!, userId: row!.id, role });
      }
      accounts.push({ username: u.username, email: u.email, label: u.label, password });
    }
    await seedCveReference(tx, { mode: 'demo' });
    await seedVulnerabilityDemo(tx, { acme: tenantIds.get('acme')!, horizon: tenantIds.get('horizon')! });
    await seedProjectDemo(tx, { acme: tenantIds.get('acme')!, horizon: tenantIds.get('horizon')! });
    await seedBlogDemo(tx, { acme: tenantIds.get('acme')!, horizon: tenantIds.get('horizon')! });
    await seedNotificationDemo(tx, { acme: tenantIds.get('acme')!, horizon: tenantIds.get('horizon')! });
    return accounts;
  });
}

export function formatAccounts(accounts: SeededAccount[], fromEnv: boolean): string {
  const lines = accounts.map(
    (a) => `  ${a.label.padEnd(14)} ${a.username.padEnd(10)} ${fromEnv ? '(VIGIE_DEMO_PASSWORD)' : a.password}`,
  );
  return ['Demo accounts (passwords shown only this once; keep them):', ...lines].join('\n');
}
