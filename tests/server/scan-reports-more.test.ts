import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_REPORT_BYTES,
  parseReportFile,
  ReportError,
  type Finding,
  type FormatChoice,
} from '../../server/src/scan-reports/index.ts';
import { byKey, refusal, scanFile, scratchReports } from './support/scan-reports.ts';

// Importers beyond Trivy, Nmap and OpenVAS: OWASP ZAP (XML, « xml plus », JSON), Nessus (.nessus, gzip or not),
// Grype, CycloneDX with VEX, OWASP Dependency-Check and SARIF 2.1.0. The expected counts were taken from the files
// themselves, outside this code (distinct keys: ZAP (pluginid, uri, param) per site, Nessus (pluginID, port,
// protocol) per host, Grype (id, artifact), CycloneDX (vulnerability, affected ref), Dependency-Check (name, package)
// of the non-suppressed vulnerabilities).

const file = scanFile;
// The SARIF sample is hand-written after the SARIF 2.1.0 specification (OASIS, §3) and the shape GitHub CodeQL
// gives its rules (`properties.security-severity`, `external/cwe/cwe-NNN` tags): seed-data has no SARIF report.
const SARIF = path.resolve(import.meta.dirname, '../fixtures/scans/sarif/codeql-sample.sarif.json');
const temp = scratchReports('vigie-reports-more-', 'bin');

const counts = (findings: Finding[]) =>
  findings.reduce<Record<string, number>>((acc, f) => ({ ...acc, [f.severity]: (acc[f.severity] ?? 0) + 1 }), {});
// Markup left in a text: <p>, </p>, <br/>, <li>… (a code snippet's `M<p&&x` in ZAP's evidence is text, not a tag).
const noTags = (findings: Finding[]) =>
  findings.every((f) => !/<\/?(?:p|br|ul|li)\s*\/?>/i.test(`${f.title}${f.description}${f.solution}`));

const DTD_MESSAGE = 'Rapport refusé : les DTD et entités XML ne sont pas acceptées.';

describe('OWASP ZAP reports', () => {
  it('reads the traditional XML report: one finding per (plugin, URL, parameter), HTML made plain text', async () => {
    const { format, findings, extension } = await parseReportFile(file('zap/zap_2.9.0_some.xml'));
    expect(format).toBe('zap');
    expect(extension).toBe('xml');
    expect(findings).toHaveLength(14);
    expect(counts(findings)).toEqual({ low: 12, medium: 1, info: 1 });
    const cookie = byKey(findings, 'zap:10011|https://mainsite.com|opvc');
    expect(cookie).toEqual({
      asset: {
        name: 'https://mainsite.com',
        hostname: 'mainsite.com',
        ip_address: undefined,
        asset_type: 'application',
      },
      finding_key: 'zap:10011|https://mainsite.com|opvc',
      title: 'Cookie Without Secure Flag',
      description:
        'A cookie has been set without the secure flag, which means that the cookie can be accessed via unencrypted ' +
        'connections.\n\nURL : https://mainsite.com (GET), paramètre : opvc\n\nRéférences :\n' +
        'http://www.owasp.org/index.php/Testing_for_cookies_attributes_(OWASP-SM-002)',
      severity: 'low',
      cwe_ids: ['CWE-614'],
      port: 443,
      protocol: 'tcp',
      service: 'https',
      solution:
        'Whenever a cookie contains sensitive information or is a session token, then it should always be passed ' +
        'using an encrypted channel. Ensure that the secure flag is set for cookies containing such sensitive ' +
        'information.',
      location: 'https://mainsite.com',
    });
    expect(cookie?.cve_id).toBeUndefined();
    expect(noTags(findings)).toBe(true);
  });

  it('reads ZAP 2.10 (juice-shop): paragraphs of HTML become lines', async () => {
    const { findings } = await parseReportFile(file('zap/zap_2.10.0_juice-shop.xml'));
    expect(findings).toHaveLength(71);
    expect(counts(findings)).toEqual({ low: 40, medium: 22, info: 9 });
    const csp = byKey(findings, 'zap:10055|https://juice-shop.herokuapp.com/assets');
    expect(csp).toMatchObject({
      title: 'CSP: Wildcard Directive',
      severity: 'medium',
      cwe_ids: ['CWE-693'],
      port: 443,
      service: 'https',
    });
    expect(csp?.description).toMatch(
      /^The following directives either allow wildcard sources \(or ancestors\), are not defined, or are overly broadly defined:\n\nframe-ancestors, form-action\n\nThe directive\(s\)/,
    );
    expect(csp?.description).toContain('Références :\nhttp://www.w3.org/TR/CSP2/\n\nhttp://www.w3.org/TR/CSP/');
    expect(noTags(findings)).toBe(true);
  });

  it('reads ZAP 2.16 with requests and responses, never copying them', async () => {
    const { findings } = await parseReportFile(file('zap/zap_2.16.1_with_req_resp.xml'));
    expect(findings).toHaveLength(13);
    expect(counts(findings)).toEqual({ info: 13 });
    const auth = byKey(
      findings,
      'zap:10111|https://example-domain.com/cpapi/api/account/verifypasswordless|user_identifier',
    );
    expect(auth).toMatchObject({ title: 'Authentication Request Identified', severity: 'info', port: 443 });
    // cweid -1 is ZAP's « no CWE ».
    expect(auth?.cwe_ids).toBeUndefined();
    expect(auth?.description).toContain('URL : https://example-domain.com/cpapi/api/account/verifypasswordless (POST)');
    const text = JSON.stringify(findings);
    expect(text).not.toMatch(/requestheader|responseheader|User-Agent:/);
  });

  it('reads the « xml plus » variant without its request headers and cookies', async () => {
    const { findings } = await parseReportFile(file('zap/zap_xml_plus_format.xml'));
    expect(findings).toEqual([
      expect.objectContaining({
        asset: {
          name: 'http://localhost:8080',
          hostname: 'localhost',
          ip_address: undefined,
          asset_type: 'application',
        },
        finding_key: 'zap:90028|http://localhost:8080/bodgeit/js/qndto7n63d',
        title: 'Insecure HTTP Method - PUT',
        severity: 'medium',
        cwe_ids: ['CWE-200'],
        port: 8080,
        service: 'http',
        solution: 'TBA',
      }),
    ]);
    expect(JSON.stringify(findings)).not.toContain('JSESSIONID');
  });

  it('reads a DVWA baseline scan: an IP site, one plugin reported twice merged by key', async () => {
    const { findings } = await parseReportFile(file('zap/zap_dvwa_baseline.xml'));
    expect(findings).toHaveLength(95);
    expect(counts(findings)).toEqual({ medium: 34, low: 46, info: 15 });
    expect(byKey(findings, 'zap:10020|http://172.17.0.2/|X-Frame-Options')).toMatchObject({
      asset: { name: 'http://172.17.0.2', hostname: undefined, ip_address: '172.17.0.2', asset_type: 'application' },
      title: 'X-Frame-Options Header Not Set',
      severity: 'medium',
      cwe_ids: ['CWE-16'],
      port: 80,
      protocol: 'tcp',
      service: 'http',
      description:
        "X-Frame-Options header is not included in the HTTP response to protect against 'ClickJacking' attacks.\n\n" +
        'URL : http://172.17.0.2/ (GET), paramètre : X-Frame-Options\n\n' +
        'Références :\nhttps://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/X-Frame-Options',
    });
    expect(noTags(findings)).toBe(true);
  });

  it('reads the traditional JSON report the same way', async () => {
    const { format, findings, extension } = await parseReportFile(file('zap/zap_2.9.0_example.com.json'));
    expect(format).toBe('zap');
    expect(extension).toBe('json');
    expect(findings).toHaveLength(24);
    expect(counts(findings)).toEqual({ info: 4, low: 19, medium: 1 });
    const timestamp = byKey(
      findings,
      'zap:10096|https://www.example.com/ui/assets/vendor-0237c49b8601dcbec2f0f06a8078e405.js',
    );
    expect(timestamp).toMatchObject({
      asset: { name: 'https://www.example.com', hostname: 'www.example.com', asset_type: 'application' },
      title: 'Timestamp Disclosure - Unix',
      severity: 'info',
      cwe_ids: ['CWE-200'],
      port: 443,
      solution:
        'Manually confirm that the timestamp data is not sensitive, and that the data cannot be aggregated to ' +
        'disclose exploitable patterns.',
    });
    expect(timestamp?.description).toMatch(/^A timestamp was disclosed by the application\/web server - Unix\n\n/);
    expect(noTags(findings)).toBe(true);
  });

  it('cuts and hashes a key made long by its URL, the same at every import', async () => {
    const uri = `https://app.example/search?q=${'a'.repeat(2000)}`;
    const report = JSON.stringify({
      '@version': '2.14.0',
      site: [
        {
          '@name': 'https://app.example',
          '@host': 'app.example',
          '@port': '443',
          '@ssl': 'true',
          alerts: [
            { pluginid: '40012', name: 'XSS', riskcode: '3', confidence: '2', instances: [{ uri, param: 'q' }] },
          ],
        },
      ],
    });
    const [first, second] = await Promise.all([parseReportFile(temp(report)), parseReportFile(temp(report))]);
    const key = first.findings[0]!.finding_key;
    expect(key.length).toBeLessThanOrEqual(500);
    expect(key).toMatch(/^zap:40012\|https:\/\/app\.example\/search\?q=a+#[0-9a-f]{32}$/);
    expect(second.findings[0]!.finding_key).toBe(key);
    expect(first.findings[0]!.severity).toBe('high');
  });
});

const NESSUS_HTML = `<?xml version="1.0" ?>
<NessusClientData_v2>
<Report name="Interne" xmlns:cm="http://www.nessus.org/cm">
<ReportHost name="10.20.30.40"><HostProperties>
<tag name="host-ip">10.20.30.40</tag>
<tag name="host-fqdn">web01.interne.example</tag>
<tag name="operating-system">Linux Kernel 5.4 on Ubuntu 20.04</tag>
<tag name="system-type">general-purpose</tag>
</HostProperties>
<ReportItem port="443" svc_name="www" protocol="tcp" severity="4" pluginID="156255" pluginName="Apache 2.4.x &lt; 2.4.52 Multiple Vulnerabilities" pluginFamily="Web Servers">
<cve>CVE-2021-44790</cve>
<cve>CVE-2021-44224</cve>
<cvss3_base_score>9.8</cvss3_base_score>
<cvss3_vector>CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H</cvss3_vector>
<cvss_base_score>7.5</cvss_base_score>
<cvss_vector>CVSS2#AV:N/AC:L/Au:N/C:P/I:P/A:P</cvss_vector>
<cwe>787</cwe>
<xref>CWE:476</xref>
<description>&lt;p&gt;The version of Apache httpd installed on the remote host is prior to 2.4.52.&lt;/p&gt;&lt;ul&gt;&lt;li&gt;A buffer overflow in mod_lua.&lt;/li&gt;&lt;li&gt;A NULL pointer dereference in forward proxy.&lt;/li&gt;&lt;/ul&gt;</description>
<plugin_name>Apache 2.4.x &lt; 2.4.52 Multiple Vulnerabilities</plugin_name>
<risk_factor>Critical</risk_factor>
<solution>Upgrade to Apache version 2.4.52 or later.</solution>
<synopsis>The remote web server is affected by multiple vulnerabilities.</synopsis>
<plugin_output>
  URL               : https://web01.interne.example/
  Installed version : 2.4.41
  Fixed version     : 2.4.52
</plugin_output>
</ReportItem>
<ReportItem port="22" svc_name="ssh" protocol="tcp" severity="2" pluginID="90317" pluginName="SSH Weak Algorithms Supported" pluginFamily="Misc.">
<cvss_base_score>4.3</cvss_base_score>
<cvss_vector>CVSS2#AV:N/AC:M/Au:N/C:P/I:N/A:N</cvss_vector>
<description>Nessus has detected that the remote SSH server is configured to use the Arcfour stream cipher.</description>
<plugin_name>SSH Weak Algorithms Supported</plugin_name>
<risk_factor>Medium</risk_factor>
<solution>Contact the vendor or consult product documentation to remove the weak ciphers.</solution>
<synopsis>The remote SSH server is configured to allow weak encryption algorithms.</synopsis>
</ReportItem>
</ReportHost>
</Report>
</NessusClientData_v2>`;

describe('Nessus reports', () => {
  it('reads the gzip-compressed sample: one host, its plugins keyed by plugin and port', async () => {
    const { format, findings, extension } = await parseReportFile(file('nessus/nessus_many_vuln.nessus.gz'));
    expect(format).toBe('nessus');
    expect(extension).toBe('xml.gz');
    // 7 ReportItems, all severity 0, two of them the SYN scanner on ports 443 and 264.
    expect(findings).toHaveLength(7);
    expect(counts(findings)).toEqual({ info: 7 });
    expect(findings.map((f) => f.finding_key).sort()).toEqual(
      [
        'nessus:19506|0/tcp',
        'nessus:54615|0/tcp',
        'nessus:45590|0/tcp',
        'nessus:11936|0/tcp',
        'nessus:12053|0/tcp',
        'nessus:11219|443/tcp',
        'nessus:11219|264/tcp',
      ].sort(),
    );
    const syn = byKey(findings, 'nessus:11219|443/tcp');
    expect(syn).toEqual({
      asset: {
        name: 'preprod.boardvantage.net',
        hostname: 'preprod.boardvantage.net',
        ip_address: '12.233.108.201',
        operating_system: 'CISCO PIX 7.0',
        // system-type « firewall ».
        asset_type: 'network',
      },
      finding_key: 'nessus:11219|443/tcp',
      title: 'Nessus SYN scanner',
      description:
        "It is possible to determine which TCP ports are open.\n\nThis plugin is a SYN 'half-open' port scanner.\n" +
        'It shall be reasonably quick even against a firewalled target.\n\nNote that SYN scanners are less ' +
        'intrusive than TCP (full connect) scanners against broken services, but they might kill lame misconfigured ' +
        'firewalls. They might also leave unclosed connections on the remote target, if the network is loaded.\n\n' +
        'Résultat du plugin :\nPort 443/tcp was found to be open',
      severity: 'info',
      cvss_score: undefined,
      cvss_vector: undefined,
      cwe_ids: undefined,
      port: 443,
      protocol: 'tcp',
      service: 'https?',
      solution: 'Protect your target with an IP filter.',
      location: '443/tcp',
    });
    // Port 0 is the host itself; 'n/a' is no solution.
    expect(byKey(findings, 'nessus:19506|0/tcp')).toMatchObject({ port: undefined, service: undefined, solution: '' });
  });

  it('splits a plugin naming CVEs into one finding per CVE, CVSS v3 first, HTML made plain text', async () => {
    for (const content of [NESSUS_HTML, gzipSync(NESSUS_HTML)]) {
      const { format, findings } = await parseReportFile(temp(content));
      expect(format).toBe('nessus');
      expect(findings.map((f) => f.finding_key)).toEqual(['CVE-2021-44790', 'CVE-2021-44224', 'nessus:90317|22/tcp']);
      expect(byKey(findings, 'CVE-2021-44790')).toMatchObject({
        asset: {
          name: '10.20.30.40',
          hostname: 'web01.interne.example',
          ip_address: '10.20.30.40',
          operating_system: 'Linux Kernel 5.4 on Ubuntu 20.04',
          asset_type: 'server',
        },
        cve_id: 'CVE-2021-44790',
        title: 'Apache 2.4.x < 2.4.52 Multiple Vulnerabilities',
        description:
          'The remote web server is affected by multiple vulnerabilities.\n\n' +
          'The version of Apache httpd installed on the remote host is prior to 2.4.52.\n\n' +
          '- A buffer overflow in mod_lua.\n- A NULL pointer dereference in forward proxy.\n\n' +
          'Résultat du plugin :\nURL               : https://web01.interne.example/\n' +
          'Installed version : 2.4.41\nFixed version     : 2.4.52',
        severity: 'critical',
        cvss_score: 9.8,
        cvss_vector: 'CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
        cwe_ids: ['CWE-787', 'CWE-476'],
        port: 443,
        protocol: 'tcp',
        service: 'www',
        solution: 'Upgrade to Apache version 2.4.52 or later.',
      });
      expect(byKey(findings, 'nessus:90317|22/tcp')).toMatchObject({
        severity: 'medium',
        cvss_score: 4.3,
        cvss_vector: 'AV:N/AC:M/Au:N/C:P/I:N/A:N',
        port: 22,
        service: 'ssh',
      });
      expect(noTags(findings)).toBe(true);
    }
  });
});

describe('Grype JSON reports', () => {
  it('reads an image scan with EPSS: one finding per (CVE, package)', async () => {
    const { format, findings } = await parseReportFile(file('extra/grype_busybox_with_epss.json'));
    expect(format).toBe('grype');
    expect(findings).toHaveLength(15);
    expect(counts(findings)).toEqual({ critical: 1, high: 10, medium: 2, low: 2 });
    expect(byKey(findings, 'CVE-2021-42376|busybox')).toEqual({
      asset: { name: 'busybox:1.32.1', operating_system: 'busybox 1.32.1', asset_type: 'container' },
      finding_key: 'CVE-2021-42376|busybox',
      cve_id: 'CVE-2021-42376',
      title: 'CVE-2021-42376 — busybox',
      description:
        "A NULL pointer dereference in Busybox's hush applet leads to denial of service when processing a crafted " +
        'shell command, due to missing validation after a \\x03 delimiter character. This may be used for DoS under ' +
        'very rare conditions of filtered command input.\n\nEPSS : 0,03 % (centile 6,08 %), au 2025-06-18.',
      severity: 'medium',
      // v3.1 (5.5) before v2 (1.9).
      cvss_score: 5.5,
      cvss_vector: 'CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:N/I:N/A:H',
      package_name: 'busybox',
      installed_version: '1.32.1',
      fixed_version: '1.34.0',
      solution: 'Mettre à jour busybox vers la version 1.34.0.',
      location: '/bin/[',
    });
    expect(byKey(findings, 'CVE-2022-48174|busybox')).toMatchObject({ severity: 'critical', cvss_score: 9.8 });
  });

  it('keys a GHSA advisory by the CVE its related vulnerabilities name', async () => {
    const report = {
      matches: [
        {
          vulnerability: { id: 'GHSA-jfh8-c2jp-5v3q', severity: 'Critical', fix: { versions: ['2.15.0'] } },
          relatedVulnerabilities: [
            {
              id: 'CVE-2021-44228',
              description: 'Apache Log4j2 JNDI features do not protect against attacker controlled LDAP.',
              cvss: [
                { version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H', metrics: { baseScore: 10 } },
              ],
            },
          ],
          artifact: { name: 'log4j-core', version: '2.14.1', type: 'java-archive' },
        },
      ],
      source: { type: 'directory', target: './app' },
      descriptor: { name: 'grype', version: '0.94.0' },
    };
    const { findings } = await parseReportFile(temp(JSON.stringify(report)));
    expect(findings).toEqual([
      expect.objectContaining({
        asset: { name: './app', operating_system: undefined, asset_type: 'application' },
        finding_key: 'CVE-2021-44228|log4j-core',
        cve_id: 'CVE-2021-44228',
        title: 'CVE-2021-44228 (GHSA-jfh8-c2jp-5v3q) — log4j-core',
        severity: 'critical',
        cvss_score: 10,
        fixed_version: '2.15.0',
        description: 'Apache Log4j2 JNDI features do not protect against attacker controlled LDAP.',
      }),
    ]);
  });
});

describe('CycloneDX JSON (SBOM with VEX)', () => {
  it('reads the log4j BOM: one finding per (vulnerability, component), the VEX state kept raw', async () => {
    const { format, findings } = await parseReportFile(file('extra/cyclonedx_log4j_vex.json'));
    expect(format).toBe('cyclonedx');
    expect(findings).toHaveLength(8);
    expect(counts(findings)).toEqual({ critical: 4, high: 1, medium: 3 });
    expect(findings.every((f) => f.vex_state === 'in_triage')).toBe(true);
    const asset = {
      name: './configuration/.m2/repository/org/apache/logging/log4j/log4j-core/2.13.2',
      asset_type: 'application',
    };
    expect(byKey(findings, 'CVE-2021-44228|org.apache.logging.log4j:log4j-core')).toMatchObject({
      asset,
      cve_id: 'CVE-2021-44228',
      title: 'CVE-2021-44228 — org.apache.logging.log4j:log4j-core',
      severity: 'critical',
      // CVSSv31 before CVSSv2, both 10 here: the vector says which.
      cvss_score: 10,
      cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
      package_name: 'org.apache.logging.log4j:log4j-core',
      installed_version: '2.13.2',
      vex_state: 'in_triage',
    });
    expect(byKey(findings, 'CVE-2021-44228|org.apache.logging.log4j:log4j-core')?.description).toMatch(
      /^Apache Log4j2 2\.0-beta9 through 2\.15\.0/,
    );
    expect(byKey(findings, 'GHSA-jfh8-c2jp-5v3q|org.apache.logging.log4j:log4j-core')).toMatchObject({
      cve_id: undefined,
      severity: 'critical',
      cvss_score: undefined,
      fixed_version: '2.15.0',
      solution: 'Mettre à jour org.apache.logging.log4j:log4j-core vers la version 2.15.0.',
    });
  });

  it('imports not_affected, false_positive and resolved vulnerabilities with their state; CWE ids and CVSS v3 first', async () => {
    const vulnerability = (id: string, state: string, extra: object = {}) => ({
      id,
      ratings: [
        { score: 8.7, method: 'CVSSv4', vector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:N/VA:N/SC:N/SI:N/SA:N' },
        { score: 7.5, severity: 'high', method: 'CVSSv31', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N' },
      ],
      cwes: [79, 352],
      analysis: { state, justification: 'code_not_reachable', detail: 'Chemin de code jamais appelé.' },
      affects: [{ ref: 'comp-express' }],
      ...extra,
    });
    const bom = {
      bomFormat: 'CycloneDX',
      specVersion: '1.5',
      metadata: { component: { type: 'container', name: 'registry.example/shop', version: '3.2.0' } },
      components: [
        {
          'bom-ref': 'comp-express',
          type: 'library',
          name: 'express',
          version: '4.17.1',
          purl: 'pkg:npm/express@4.17.1',
        },
      ],
      vulnerabilities: [
        vulnerability('CVE-2024-00001', 'not_affected'),
        vulnerability('CVE-2024-00002', 'false_positive'),
        vulnerability('CVE-2024-00003', 'resolved', { recommendation: 'Rien à faire : corrigé en amont.' }),
        vulnerability('CVE-2024-00004', 'exploitable', { analysis: undefined }),
      ],
    };
    const { findings } = await parseReportFile(temp(JSON.stringify(bom)));
    expect(findings.map((f) => [f.finding_key, f.vex_state])).toEqual([
      ['CVE-2024-00001|express', 'not_affected'],
      ['CVE-2024-00002|express', 'false_positive'],
      ['CVE-2024-00003|express', 'resolved'],
      ['CVE-2024-00004|express', undefined],
    ]);
    expect(findings[0]).toMatchObject({
      asset: { name: 'registry.example/shop', asset_type: 'container' },
      severity: 'high',
      cvss_score: 7.5,
      cvss_vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
      cwe_ids: ['CWE-79', 'CWE-352'],
      package_name: 'express',
      installed_version: '4.17.1',
      description: 'Chemin de code jamais appelé.',
    });
    expect(findings[2]!.solution).toBe('Rien à faire : corrigé en amont.');
  });
});

describe('OWASP Dependency-Check XML reports', () => {
  it('reads the multiple-vulnerabilities sample: (vulnerability, package) per dependency, suppressed ones left out', async () => {
    const { format, findings } = await parseReportFile(file('extra/dependency-check_multiple_vulns.xml'));
    expect(format).toBe('dependency-check');
    // 7 vulnerabilities (2 suppressed ones left out); dom4j's CVE in two ears is one finding.
    expect(findings.map((f) => f.finding_key).sort()).toEqual(
      [
        'CVE-0000-0001|org.dom4j:dom4j',
        'NPM-1500|yargs-parser',
        'CVE-2020-7608|yargs-parser',
        "CWE-400: Uncontrolled Resource Consumption ('Resource Exhaustion')|yargs-parser",
        'CVE-0000-0001|dom4j-2.1.1.jar',
        'CVE-0000-0001|jquery.js',
      ].sort(),
    );
    expect(counts(findings)).toEqual({ high: 5, low: 1 });
    expect(byKey(findings, 'CVE-2020-7608|yargs-parser')).toEqual({
      asset: { name: 'Test Project', asset_type: 'application' },
      finding_key: 'CVE-2020-7608|yargs-parser',
      cve_id: 'CVE-2020-7608',
      title: 'CVE-2020-7608 — yargs-parser',
      description:
        'yargs-parser could be tricked into adding or modifying properties of Object.prototype using a ' +
        '"__proto__" payload.\n\n' +
        'Fichier : /var/lib/jenkins/workspace/nl-selfservice_-_metrics_develop/package-lock.json?yargs-parser',
      severity: 'high',
      cvss_score: 7.5,
      // No <version> in this cvssV3: the vector has no 'CVSS:3.x/' prefix rather than a guessed one.
      cvss_vector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:H/A:N',
      cwe_ids: undefined,
      package_name: 'yargs-parser',
      installed_version: '5.0.0',
      solution: 'Mettre à jour yargs-parser vers une version qui corrige CVE-2020-7608.',
      location: '/var/lib/jenkins/workspace/nl-selfservice_-_metrics_develop/package-lock.json?yargs-parser',
    });
    expect(
      byKey(findings, "CWE-400: Uncontrolled Resource Consumption ('Resource Exhaustion')|yargs-parser")?.cwe_ids,
    ).toEqual(['CWE-400']);
    const dom4j = byKey(findings, 'CVE-0000-0001|org.dom4j:dom4j');
    // The pre-5.0 v2 metrics on the vulnerability itself; 'CWE-00 Bad Vulnerability' is no CWE.
    expect(dom4j).toMatchObject({
      cvss_score: 7.5,
      cvss_vector: 'AV:N/AC:L/Au:N/C:P/I:P/A:P',
      cwe_ids: undefined,
      installed_version: '2.1.1.redhat-00001',
    });
    expect(dom4j?.description).toContain('Également détecté : ');
    expect(JSON.stringify(findings)).not.toMatch(/CVE-2019-7238|CVE-2017-1000487/);
  });

  it('wants its namespace: another <analysis> document is not recognised', async () => {
    const err = await refusal(temp('<analysis><dependencies/></analysis>'));
    expect(err.code).toBe('report_unknown_format');
    expect((await parseReportFile(temp('<analysis><dependencies/></analysis>'), 'dependency-check')).findings).toEqual(
      [],
    );
  });
});

describe('SARIF 2.1.0 reports', () => {
  it('reads the CodeQL sample: security-severity 9.8 is critical, a warning without one is medium', async () => {
    const { format, findings } = await parseReportFile(SARIF);
    expect(format).toBe('sarif');
    expect(findings.map((f) => [f.finding_key, f.severity])).toEqual([
      ['sarif:js/sql-injection|src/routes/products.js:42', 'critical'],
      ['sarif:js/sql-injection|src/routes/orders.js:17', 'critical'],
      ['sarif:js/useless-assignment-to-local|src/lib/cart.js:8', 'medium'],
    ]);
    expect(findings[0]).toEqual({
      asset: { name: 'https://github.com/acme/boutique-web', asset_type: 'application' },
      finding_key: 'sarif:js/sql-injection|src/routes/products.js:42',
      title: 'Database query built from user-controlled sources',
      description:
        'This query string depends on a [user-provided value](1).\n\n' +
        'Building a database query from user-controlled sources is vulnerable to insertion of malicious code by the ' +
        'user.\n\nEmplacement : src/routes/products.js, ligne 42\n\nRègle js/sql-injection (CodeQL).',
      severity: 'critical',
      cwe_ids: ['CWE-89', 'CWE-90', 'CWE-943'],
      solution:
        'Most database connector libraries offer a way of safely embedding untrusted data into a query by means of ' +
        'query parameters or prepared statements. Use them instead of building the query by string concatenation.',
      location: 'src/routes/products.js:42',
    });
    expect(findings[2]).toMatchObject({ cwe_ids: ['CWE-563'], title: 'Useless assignment to local variable' });
  });

  it('leaves out suppressed and passed results', async () => {
    const sarif = JSON.parse(readFileSync(SARIF, 'utf8')) as { runs: { results: Record<string, unknown>[] }[] };
    const results = sarif.runs[0]!.results;
    results[0]!.suppressions = [{ kind: 'external', status: 'accepted' }];
    results[1]!.kind = 'pass';
    const { findings } = await parseReportFile(temp(JSON.stringify(sarif)));
    expect(findings.map((f) => f.finding_key)).toEqual(['sarif:js/useless-assignment-to-local|src/lib/cart.js:8']);
  });
});

describe('detection, stability and refusals of the new formats', () => {
  const SAMPLES: [string, string, number][] = [
    [file('zap/zap_2.10.0_juice-shop.xml'), 'zap', 71],
    [file('zap/zap_2.16.1_with_req_resp.xml'), 'zap', 13],
    [file('zap/zap_2.9.0_example.com.json'), 'zap', 24],
    [file('zap/zap_2.9.0_some.xml'), 'zap', 14],
    [file('zap/zap_dvwa_baseline.xml'), 'zap', 95],
    [file('zap/zap_xml_plus_format.xml'), 'zap', 1],
    [file('nessus/nessus_many_vuln.nessus.gz'), 'nessus', 7],
    [file('extra/grype_busybox_with_epss.json'), 'grype', 15],
    [file('extra/cyclonedx_log4j_vex.json'), 'cyclonedx', 8],
    [file('extra/dependency-check_multiple_vulns.xml'), 'dependency-check', 6],
    [SARIF, 'sarif', 3],
  ];

  it('detects every sample by its content, whatever its file name, and gives the same keys twice', async () => {
    for (const [p, format, count] of SAMPLES) {
      const renamed = temp(readFileSync(p));
      const first = await parseReportFile(renamed);
      expect(first.format, p).toBe(format);
      expect(first.findings, p).toHaveLength(count);
      const again = await parseReportFile(p, format as FormatChoice);
      expect(
        again.findings.map((f) => f.finding_key),
        p,
      ).toEqual(first.findings.map((f) => f.finding_key));
    }
  });

  it('refuses a gzip bomb with a French 413, and a broken archive with a French 400', async () => {
    const bomb = gzipSync(Buffer.concat([Buffer.from('<NessusClientData_v2>'), Buffer.alloc(MAX_REPORT_BYTES, 0x20)]));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const err = await refusal(temp(bomb, 'gz'));
    expect(err.status).toBe(413);
    expect(err.code).toBe('report_too_large');
    expect(err.message).toBe('Rapport trop volumineux une fois décompressé (50 Mo au maximum).');

    const archive = gzipSync(readFileSync(file('zap/zap_2.9.0_some.xml')));
    const broken = await refusal(temp(archive.subarray(0, archive.length - 40), 'gz'));
    expect(broken.status).toBe(400);
    expect(broken.message).toBe('Rapport compressé illisible : archive gzip invalide ou tronquée.');
    expect((await refusal(temp(gzipSync(''), 'gz'))).message).toBe('Le fichier du rapport est vide.');
  });

  it('refuses a DTD in a ZAP, Nessus (even compressed) or Dependency-Check report', async () => {
    const xxe = (root: string, attrs = '') =>
      `<?xml version="1.0"?>\n<!DOCTYPE ${root} [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>\n<${root}${attrs}>&xxe;</${root}>`;
    const dc = ' xmlns="https://jeremylong.github.io/DependencyCheck/dependency-check.2.5.xsd"';
    for (const [content, format] of [
      [xxe('OWASPZAPReport'), 'auto'],
      [xxe('OWASPZAPReport'), 'zap'],
      [xxe('NessusClientData_v2'), 'auto'],
      [gzipSync(xxe('NessusClientData_v2')), 'auto'],
      [xxe('analysis', dc), 'auto'],
      [xxe('analysis'), 'dependency-check'],
    ] as const) {
      const err = await refusal(temp(content), format);
      expect(err.message).toBe(DTD_MESSAGE);
      expect(err.status).toBe(400);
    }
  });

  it('answers malformed XML and JSON with a French message naming the format', async () => {
    const cases: [string, FormatChoice, string | RegExp][] = [
      ['<OWASPZAPReport><site name="x">', 'auto', /^Rapport OWASP ZAP XML\/JSON invalide : XML mal formé \(.+\)\.$/],
      ['<NessusClientData_v2><Report>', 'auto', /^Rapport Nessus XML invalide : XML mal formé \(.+\)\.$/],
      [
        '<analysis xmlns="https://jeremylong.github.io/DependencyCheck/dependency-check.2.5.xsd"><dependencies>',
        'auto',
        /^Rapport OWASP Dependency-Check XML invalide : XML mal formé \(.+\)\.$/,
      ],
      ['{"@version": "2.9.0", "site": [', 'auto', 'Rapport JSON invalide : JSON mal formé.'],
      ['{"matches": [', 'grype', 'Rapport Grype JSON invalide : JSON mal formé.'],
      ['{"matches": {}}', 'grype', 'Rapport Grype JSON invalide : tableau matches attendu.'],
      [
        '{"version": "2.0.0", "runs": []}',
        'sarif',
        'Rapport SARIF 2.1.0 invalide : champs version « 2.1.0 » et runs attendus.',
      ],
      [
        '{"specVersion": "1.5"}',
        'cyclonedx',
        'Rapport CycloneDX JSON invalide : champ bomFormat « CycloneDX » attendu.',
      ],
      ['{"site": []}', 'zap', 'Rapport OWASP ZAP XML/JSON invalide : champs @version et site attendus.'],
      [
        readFileSync(file('zap/zap_2.9.0_some.xml'), 'utf8'),
        'nessus',
        'Rapport Nessus XML invalide : élément racine <OWASPZAPReport> inattendu.',
      ],
    ];
    for (const [content, format, message] of cases) {
      const err = await refusal(temp(content), format);
      expect(err.status, content.slice(0, 40)).toBe(400);
      if (typeof message === 'string') expect(err.message, content.slice(0, 40)).toBe(message);
      else expect(err.message, content.slice(0, 40)).toMatch(message);
    }
  });

  it('never fails with anything but a ReportError, whatever the bytes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string().map((s) => `<OWASPZAPReport><site name="a">${s}`),
          fc
            .string()
            .map(
              (s) =>
                `<NessusClientData_v2><Report><ReportHost name="h">${s}</ReportHost></Report></NessusClientData_v2>`,
            ),
          fc.string().map((s) => `{"@version":"2","site":[${s}]}`),
          fc.string().map((s) => `{"matches":[${s}],"descriptor":{"name":"grype"}}`),
          fc.string().map((s) => `{"bomFormat":"CycloneDX","vulnerabilities":[${s}]}`),
          fc.string().map((s) => `{"version":"2.1.0","runs":[${s}]}`),
          fc.jsonValue().map((v) => JSON.stringify({ version: '2.1.0', runs: [v] })),
          fc.jsonValue().map((v) => JSON.stringify({ bomFormat: 'CycloneDX', vulnerabilities: [v], components: v })),
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
