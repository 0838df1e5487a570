import { inArray } from 'drizzle-orm';
import type { Db } from './client.ts';
import { blogPosts, users, type BlogStatus } from './schema.ts';

const DAY = 86_400_000;

interface DemoPost {
  title: string;
  slug: string;
  excerpt: string;
  /** Markdown, one array item per line. */
  content: string[];
  tags: string[];
  author: 'admin' | 'manager';
  status: BlogStatus;
  /** Days before the seed (published posts: their publication; drafts: their last edit). */
  ago: number;
}

const FENCE = '```';

// Shared by both tenants: generic, names no asset. Scores: CVE records (CVSS), CISA KEV, FIRST EPSS.
const KEV_EPSS: Omit<DemoPost, 'author' | 'ago'> = {
  title: 'Prioriser les correctifs avec le catalogue KEV et les scores EPSS',
  slug: 'prioriser-correctifs-kev-epss',
  excerpt:
    'Le score CVSS dit à quel point une faille est grave ; le catalogue KEV et le score EPSS disent si elle est ' +
    'exploitée ou risque de l’être. Notre règle pour ordonner les correctifs.',
  tags: ['KEV', 'EPSS', 'Priorisation', 'Gestion des correctifs'],
  status: 'published',
  content: [
    'Plus de 25 000 CVE sont publiées chaque année : tout corriger immédiatement est impossible. Trois indicateurs ' +
      'publics, lus ensemble, disent par où commencer.',
    '',
    '## Trois indicateurs, trois questions',
    '',
    '- **CVSS** (de 0 à 10) : *à quel point la faille est-elle grave si elle est exploitée ?*',
    '- **KEV**, le catalogue *Known Exploited Vulnerabilities* de la CISA : *est-elle déjà exploitée dans la ' +
      'nature ?* Une entrée au catalogue est un fait, pas une estimation.',
    '- **EPSS** (de 0 à 1), publié chaque jour par le FIRST : *quelle est la probabilité qu’elle soit exploitée ' +
      'dans les 30 prochains jours ?*',
    '',
    '## Notre règle de tri',
    '',
    '1. Au catalogue KEV et exposée sur Internet : correction ou contournement **sous 72 heures**.',
    '2. Au catalogue KEV sur un équipement interne, ou EPSS supérieur à 0,1 : **sous 15 jours**.',
    '3. CVSS supérieur ou égal à 7 sans exploitation connue : dans le **cycle mensuel** de correctifs.',
    '4. Tout le reste : campagne trimestrielle.',
    '',
    '## Trois exemples',
    '',
    '| CVE | Produit | CVSS | KEV (ajout) | EPSS | Délai si exposée |',
    '| --- | --- | ---: | --- | ---: | --- |',
    '| CVE-2022-40684 | Fortinet FortiOS | 9,8 | oui (11/10/2022) | 0,99984 | 72 heures |',
    '| CVE-2024-8190 | Ivanti Cloud Services Appliance | 7,2 | oui (13/09/2024) | 0,88535 | 72 heures |',
    '| CVE-2023-20269 | Cisco ASA et FTD (VPN) | 5,0 | oui (13/09/2023) | 0,21583 | 72 heures |',
    '',
    'La dernière ligne est la plus instructive : un score CVSS « moyen », mais une faille exploitée par des ' +
      'groupes de rançongiciel pour entrer par le VPN. Trier par CVSS seul l’aurait laissée pour le trimestre.',
    '',
    '## Vérifier un score EPSS',
    '',
    'L’API du FIRST est publique et sans authentification :',
    '',
    FENCE + 'sh',
    'curl -s "https://api.first.org/data/v1/epss?cve=CVE-2022-40684"',
    FENCE,
    '',
    'Vigie affiche ces trois indicateurs sur chaque vulnérabilité : le filtre « KEV » de la liste donne ' +
      'directement le premier lot à traiter.',
  ],
};

const ACME_POSTS: DemoPost[] = [
  { ...KEV_EPSS, author: 'manager', ago: 26 },
  {
    title: 'FortiOS (CVE-2022-40684) : point de situation sur nos pare-feu',
    slug: 'fortios-cve-2022-40684-point-de-situation',
    excerpt:
      'Le contournement d’authentification de l’interface d’administration FortiOS est exploité activement. ' +
      'Nos deux pare-feu concernés, ce qui a été fait et ce qu’il reste à vérifier.',
    tags: ['CVE', 'Fortinet', 'KEV', 'Réponse à incident'],
    author: 'manager',
    status: 'published',
    ago: 12,
    content: [
      'La CVE-2022-40684 permet à un attaquant non authentifié d’exécuter des opérations sur l’interface ' +
        'd’administration de FortiOS, FortiProxy et FortiSwitchManager au moyen de requêtes HTTP ou HTTPS ' +
        'forgées. Elle figure au catalogue KEV de la CISA depuis le 11 octobre 2022 et son score EPSS ' +
        'dépasse 0,99.',
      '',
      '## Versions touchées',
      '',
      '| Produit | Versions vulnérables | Version corrigée |',
      '| --- | --- | --- |',
      '| FortiOS | 7.0.0 à 7.0.6, 7.2.0 à 7.2.1 | 7.0.7, 7.2.2 |',
      '| FortiProxy | 7.0.0 à 7.0.6, 7.2.0 | 7.0.7, 7.2.1 |',
      '| FortiSwitchManager | 7.0.0, 7.2.0 | 7.2.1 |',
      '',
      '## Nos équipements',
      '',
      '- `fw-perimetre-01` : pare-feu de périmètre, interface d’administration joignable depuis Internet ' +
        'jusqu’à la semaine dernière ;',
      '- `fw-interne-02` : pare-feu de cœur de réseau, administrable uniquement depuis le VLAN d’administration.',
      '',
      'Des tentatives d’accès à l’interface d’administration de `fw-perimetre-01` ont été observées : la ' +
        'menace est suivie dans Vigie (« Exploitation active de FortiOS »).',
      '',
      '## Ce qui a été fait',
      '',
      '1. Accès d’administration retiré de l’interface externe :',
      '',
      FENCE,
      'config system interface',
      '    edit "wan1"',
      '        set allowaccess ping',
      '    next',
      'end',
      FENCE,
      '',
      '2. Mise à jour de `fw-perimetre-01` en 7.2.2 pendant la fenêtre de maintenance de mardi.',
      '3. Comptes d’administration et clés SSH passés en revue : aucun ajout suspect.',
      '',
      '## Ce qu’il reste à faire',
      '',
      '- Mettre à jour `fw-interne-02` (prochaine fenêtre) ;',
      '- Rechercher l’indicateur publié par l’éditeur dans les journaux archivés :',
      '',
      FENCE + 'sh',
      'grep -h \'user="Local_Process_Access"\' /archives/fortigate/*.log | head',
      FENCE,
      '',
      'Toute ligne trouvée est à signaler immédiatement à l’équipe de réponse à incident.',
    ],
  },
  {
    title: 'Exercice d’hameçonnage « faux RIB » : les résultats',
    slug: 'exercice-hameconnage-faux-rib-resultats',
    excerpt:
      'Un courriel imitant un fournisseur demandait de mettre à jour ses coordonnées bancaires. 18 % de clics, ' +
      '7 % d’identifiants saisis, mais 29 % de signalements : les chiffres par direction et les suites.',
    tags: ['Sensibilisation', 'Hameçonnage', 'Exercice'],
    author: 'admin',
    status: 'published',
    ago: 5,
    content: [
      'À la suite de la campagne réelle qui a visé la direction financière, nous avons envoyé à 156 ' +
        'collaborateurs un courriel d’exercice reprenant le même scénario : un fournisseur annonce un ' +
        'changement de RIB et renvoie vers un faux portail de connexion.',
      '',
      '## Résultats par direction',
      '',
      '| Direction | Destinataires | Clics | Identifiants saisis | Signalements |',
      '| --- | ---: | ---: | ---: | ---: |',
      '| Finance | 42 | 9 (21 %) | 4 (10 %) | 11 (26 %) |',
      '| Ressources humaines | 18 | 3 (17 %) | 1 (6 %) | 6 (33 %) |',
      '| Informatique | 35 | 2 (6 %) | 0 | 19 (54 %) |',
      '| Commercial | 61 | 14 (23 %) | 6 (10 %) | 9 (15 %) |',
      '| **Total** | **156** | **28 (18 %)** | **11 (7 %)** | **45 (29 %)** |',
      '',
      '## Ce que nous en retenons',
      '',
      '- Le premier signalement est arrivé **4 minutes** après l’envoi : le bouton « Signaler » fonctionne.',
      '- Les identifiants saisis l’ont tous été depuis un téléphone, où l’adresse de la page est peu visible.',
      '- Personne n’a appelé le fournisseur au numéro habituel pour vérifier la demande.',
      '',
      '## Les suites',
      '',
      '1. Les onze comptes concernés ont changé leur mot de passe ; l’authentification multifacteur leur est ' +
        'imposée dès cette semaine.',
      '2. Un rappel de la procédure de changement de coordonnées bancaires (double validation et rappel au ' +
        'numéro connu) est diffusé à la Finance et au Commercial.',
      '3. Prochain exercice dans trois mois, sur un autre scénario.',
      '',
      '> Un clic n’est pas une faute : signaler, même après avoir cliqué, est exactement le bon réflexe.',
    ],
  },
  {
    title: 'VPN : durcir les groupes par défaut après les tentatives de force brute',
    slug: 'vpn-durcir-groupes-par-defaut',
    excerpt:
      'La CVE-2023-20269 des Cisco ASA permet de tester des mots de passe sur le VPN d’accès distant. ' +
      'Brouillon : mesures à valider avec l’équipe réseau.',
    tags: ['CVE', 'Cisco', 'VPN'],
    author: 'manager',
    status: 'draft',
    ago: 1,
    content: [
      'Le SIEM relève plus de 5 000 échecs d’authentification par heure sur `vpn-gw-01`. La CVE-2023-20269 ' +
        '(au catalogue KEV) permet à un attaquant de mener une attaque par force brute à travers les groupes ' +
        'de tunnel par défaut.',
      '',
      '## Mesures proposées',
      '',
      '- Interdire les connexions par la politique de groupe par défaut :',
      '',
      FENCE,
      'group-policy DfltGrpPolicy attributes',
      ' vpn-simultaneous-logins 0',
      FENCE,
      '',
      '- Verrouiller chaque profil de connexion sur son groupe (`group-lock`) ;',
      '- Activer la journalisation des échecs vers le SIEM avec le nom du groupe de tunnel.',
      '',
      '## À compléter',
      '',
      '- [ ] Fenêtre de maintenance à fixer avec l’équipe réseau',
      '- [ ] Liste des profils de connexion réellement utilisés',
    ],
  },
];

const HORIZON_POSTS: DemoPost[] = [
  { ...KEV_EPSS, author: 'admin', ago: 30 },
  {
    title: 'Ivanti CSA (CVE-2024-8190) : corriger, puis retirer la version 4.6',
    slug: 'ivanti-csa-cve-2024-8190',
    excerpt:
      'L’injection de commandes de la console d’administration d’Ivanti Cloud Services Appliance est exploitée, ' +
      'enchaînée à un contournement d’authentification. La 4.6 n’est plus maintenue : il faut en sortir.',
    tags: ['CVE', 'Ivanti', 'KEV', 'Fin de support'],
    author: 'manager',
    status: 'published',
    ago: 9,
    content: [
      'La CVE-2024-8190 est une injection de commandes système dans la console d’administration d’Ivanti ' +
        'Cloud Services Appliance (CSA) 4.6. Seul un administrateur authentifié peut l’exploiter, mais les ' +
        'attaquants l’enchaînent avec la CVE-2024-8963 (traversée de répertoire) qui contourne ' +
        'l’authentification. Les deux sont au catalogue KEV de la CISA.',
      '',
      '## Notre exposition',
      '',
      'L’appliance `vpn-agences` qui sert l’accès distant des agences est en version 4.6 : elle est ' +
        'concernée et joignable depuis Internet.',
      '',
      '## Plan d’action',
      '',
      '1. Appliquer sans attendre le correctif 4.6 Patch 519.',
      '2. Vérifier l’absence de comptes d’administration créés ou modifiés récemment, et les alertes EDR ' +
        'sur l’appliance.',
      '3. Migrer vers CSA 5.0 : la branche 4.6 est en fin de vie et ne recevra plus de correctifs.',
      '',
      '| Étape | Responsable | Échéance |',
      '| --- | --- | --- |',
      '| Correctif 4.6 Patch 519 | Équipe réseau | J+2 |',
      '| Revue des comptes et des journaux | SOC | J+3 |',
      '| Migration vers CSA 5.0 | Équipe réseau | J+30 |',
      '',
      'Le suivi se fait dans le projet de remédiation correspondant de Vigie.',
    ],
  },
  {
    title: 'Smishing usurpant la banque : ce que les conseillers doivent dire aux clients',
    slug: 'smishing-conseils-aux-clients',
    excerpt:
      'Des clients reçoivent des SMS renvoyant vers un faux site de banque en ligne. Les signes à reconnaître ' +
      'et la conduite à tenir, à relayer en agence et au téléphone.',
    tags: ['Hameçonnage', 'Sensibilisation', 'Fraude'],
    author: 'admin',
    status: 'published',
    ago: 3,
    content: [
      'Depuis dix jours, le service client reçoit des appels de clients ayant reçu un SMS « Votre accès sera ' +
        'suspendu, confirmez votre identité » suivi d’un lien vers un faux site reprenant notre charte.',
      '',
      '## Les signes à reconnaître',
      '',
      '- un lien raccourci ou un nom de domaine proche du nôtre, mais différent ;',
      '- une urgence (« sous 24 heures ») et une menace (blocage du compte) ;',
      '- une demande de code reçu par SMS ou de validation dans l’application.',
      '',
      '## Ce que nous rappelons aux clients',
      '',
      '1. La banque ne demande **jamais** un code de validation par SMS, courriel ou téléphone.',
      '2. En cas de doute, raccrocher et appeler le numéro au dos de la carte.',
      '3. Transférer le SMS frauduleux au **33700**, puis le supprimer.',
      '',
      '## Si le client a saisi ses identifiants',
      '',
      '- faire opposition sur la carte et bloquer l’accès à la banque en ligne ;',
      '- ouvrir un signalement de fraude et le transmettre à la sécurité ;',
      '- réinitialiser l’accès en agence, sur présentation d’une pièce d’identité.',
      '',
      'La demande de retrait du faux site est en cours auprès de l’hébergeur et du registre.',
    ],
  },
  {
    title: 'Test de bascule anti-DDoS : compte rendu',
    slug: 'test-bascule-anti-ddos',
    excerpt: 'Brouillon du compte rendu du test de bascule vers le service anti-DDoS de l’hébergeur.',
    tags: ['DDoS', 'Continuité'],
    author: 'manager',
    status: 'draft',
    ago: 2,
    content: [
      'Après l’attaque absorbée le mois dernier, nous avons testé la bascule manuelle du trafic de la banque ' +
        'en ligne vers le service de nettoyage de l’hébergeur.',
      '',
      '## Chronologie',
      '',
      '| Heure | Étape |',
      '| --- | --- |',
      '| 22:00 | Début du test, annonce au service client |',
      '| 22:04 | Bascule DNS demandée |',
      '| 22:11 | Trafic intégralement nettoyé |',
      '| 22:30 | Retour à la normale |',
      '',
      '## À compléter',
      '',
      '- [ ] Mesures de latence pendant la bascule',
      '- [ ] Décision sur la bascule automatique',
    ],
  },
];

/**
 * A few posts of each demo tenant's blog: published ones dated in the past and one draft. Posts already there
 * (same slug in the tenant) are left as they are, so running it again changes nothing.
 */
export async function seedBlogDemo(db: Db, tenants: { acme: string; horizon: string }): Promise<void> {
  const people = await db
    .select({ id: users.id, username: users.username, firstName: users.firstName, lastName: users.lastName })
    .from(users)
    .where(inArray(users.username, ['admin', 'manager']));
  const authors = new Map(people.map((u) => [u.username, u]));
  const now = Date.now();
  for (const [tenantId, posts] of [
    [tenants.acme, ACME_POSTS],
    [tenants.horizon, HORIZON_POSTS],
  ] as const) {
    const rows = posts.map((p) => {
      const author = authors.get(p.author);
      const at = new Date(now - p.ago * DAY);
      return {
        tenantId,
        title: p.title,
        slug: p.slug,
        excerpt: p.excerpt,
        content: p.content.join('\n'),
        authorId: author?.id ?? null,
        authorName: author ? `${author.firstName} ${author.lastName}`.trim() || author.username : '',
        tags: p.tags,
        status: p.status,
        publishedDate: p.status === 'published' ? at : null,
        createdAt: new Date(at.getTime() - DAY),
        updatedAt: at,
      };
    });
    await db
      .insert(blogPosts)
      .values(rows)
      .onConflictDoNothing({ target: [blogPosts.tenantId, blogPosts.slug] });
  }
}
