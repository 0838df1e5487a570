import { act } from 'react';
import { Route } from 'wouter';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { session } from '../../src/lib/auth/session.ts';
import VulnerabilityDetailPage from '../../src/features/vulnerabilities/detail-page.tsx';
import VulnerabilityListPage from '../../src/features/vulnerabilities/list-page.tsx';
import { findingBody, validateFinding, type FindingTexts } from '../../src/features/vulnerabilities/finding-form.tsx';
import { mockApi, setup, signInAs, text, until, withScrollerHeight, type Call } from './vulnerabilities-helpers.tsx';

/** A manual finding on a firewall, without a CVE sheet (the triage panel needs a state: none here). */
const finding = {
  id: 42,
  title: 'Mot de passe par défaut',
  description: 'Constaté lors de l’audit.',
  cve_id: null,
  severity: 'high',
  severity_source: 'analyst',
  cvss_score: 8.1,
  kev: false,
  epss_score: null,
  asset: { id: 5, name: 'fw-paris-01' },
  asset_id: 5,
  port: 22,
  protocol: 'tcp',
  service: 'ssh',
  solution: 'Changer le mot de passe.',
  is_resolved: false,
  created_at: '2026-11-12T14:05:00Z',
  cve: null,
};
const ASSETS = { count: 2, next: null, previous: null, results: [finding.asset, { id: 6, name: 'srv-web-01' }] };

let page: ReturnType<typeof setup>;
beforeEach(() => {
  page = setup();
});
afterEach(() => {
  page.cleanup();
  session.value = null;
});

const buttons = () => [...page.container.querySelectorAll('button')];
const button = (label: string) => buttons().find((b) => b.textContent === label);
const click = (label: string) => act(() => button(label)!.click());
const formEl = () => page.container.querySelector('form')!;
const field = <E extends Element>(label: string): E => {
  const l = [...page.container.querySelectorAll('label')].find((x) => x.textContent === label)!;
  return page.container.querySelector<E & Element>(`#${CSS.escape(l.htmlFor)}`)!;
};

/** The prototype setter is how a real keystroke (or choice) updates a React-controlled field. */
function type(el: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, value: string) {
  const proto = Object.getPrototypeOf(el) as object;
  act(() => {
    Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(el, value);
    el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
  });
}
function submit() {
  act(() => {
    formEl().dispatchEvent(new Event('submit', { bubbles: true, cancelable: true }));
  });
}

function renderDetail() {
  page.render('/vulnerabilities/42', <Route path="/vulnerabilities/:id" component={VulnerabilityDetailPage} />);
}

/** The detail page's server: the finding, the assets, and `write` for the writes. */
function detailApi(
  write: (call: Call) => { status?: number; body: unknown } = (c) => ({ body: { ...finding, ...(c.body as object) } }),
) {
  return mockApi((call) => {
    if (call.path === '/api/assets/') return { body: ASSETS };
    if (call.method === 'GET') return { body: finding };
    return write(call);
  });
}

describe('a finding’s page: edit (PUT) and delete for writers', () => {
  it('offers « Modifier » and « Supprimer » to writers, neither to read-only members', async () => {
    signInAs('user');
    detailApi();
    renderDetail();
    await until(() => expect(button('Modifier')).toBeDefined());
    expect(button('Supprimer')).toBeDefined();
    page.cleanup();

    page = setup();
    signInAs('readonly');
    detailApi();
    renderDetail();
    await until(() => expect(page.container.querySelector('h1')).not.toBeNull());
    expect(button('Modifier')).toBeUndefined();
    expect(button('Supprimer')).toBeUndefined();
  });

  it('edits the finding’s own fields with PUT, says it in French and reads the finding again', async () => {
    signInAs('user');
    const calls = detailApi();
    renderDetail();
    await until(() => expect(button('Modifier')).toBeDefined());
    click('Modifier');
    await until(() => expect(field<HTMLSelectElement>('Actif').options.length).toBe(3));
    // Starts from the finding: its title, score the French way, asset, port.
    expect(field<HTMLInputElement>('Titre *').value).toBe('Mot de passe par défaut');
    expect(field<HTMLInputElement>('Score CVSS (0 à 10)').value).toBe('8,1');
    expect(field<HTMLSelectElement>('Actif').value).toBe('5');
    expect(field<HTMLInputElement>('Port').value).toBe('22');
    // Its severity is not here: it changes with a reason, in « Gravité ».
    expect(formEl().textContent).not.toContain('Selon la CVE');
    type(field('Titre *'), 'Mot de passe par défaut (SSH)');
    type(field('Score CVSS (0 à 10)'), '9,8');
    type(field('Actif'), '6');
    type(field('Port'), '');
    submit();
    await until(() =>
      expect(text(page.container.querySelector('[role="status"].muted'))).toBe('Vulnérabilité enregistrée.'),
    );
    const put = calls.find((c) => c.method === 'PUT')!;
    expect(put.path).toBe('/api/vulnerabilities/vulnerabilities/42/');
    expect(put.body).toEqual({
      title: 'Mot de passe par défaut (SSH)',
      cve_id: null,
      asset_id: 6,
      cvss_score: 9.8,
      description: 'Constaté lors de l’audit.',
      solution: 'Changer le mot de passe.',
      port: null,
      protocol: 'tcp',
      service: 'ssh',
    });
    expect(page.container.querySelector('form')).toBeNull();
    // The page reads the finding again (its CVE sheet and SSVC decision may have changed).
    await until(() => expect(calls.filter((c) => c.method === 'GET' && c.path.endsWith('/42/')).length).toBe(2));
  });

  it('checks the fields before sending, then shows the server’s field message and keeps what was typed', async () => {
    signInAs('user');
    const calls = detailApi(() => ({
      status: 400,
      body: {
        detail: 'Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).',
        fields: { cve_id: ['CVE inconnue au format.'] },
      },
    }));
    renderDetail();
    await until(() => expect(button('Modifier')).toBeDefined());
    click('Modifier');
    type(field('Titre *'), ' ');
    type(field('Score CVSS (0 à 10)'), '11');
    submit();
    expect(formEl().textContent).toContain('Le titre est requis (ou un identifiant CVE connu).');
    expect(formEl().textContent).toContain('Le score CVSS doit être compris entre 0 et 10.');
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);

    type(field('Titre *'), 'Titre corrigé');
    type(field('Score CVSS (0 à 10)'), '7');
    type(field('CVE'), 'CVE-2024-99999');
    submit();
    await until(() => expect(formEl().textContent).toContain('CVE inconnue au format.'));
    expect(text(formEl().querySelector('[role="alert"]'))).toBe(
      'Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).',
    );
    expect(field<HTMLInputElement>('Titre *').value).toBe('Titre corrigé');
  });

  it('asks before deleting; « Non » keeps it, « Oui, supprimer » sends DELETE and says it is gone', async () => {
    signInAs('user');
    const calls = detailApi(() => ({ status: 204, body: null }));
    renderDetail();
    await until(() => expect(button('Supprimer')).toBeDefined());
    click('Supprimer');
    expect(text(page.container.querySelector('[role="group"]'))).toContain(
      'Supprimer définitivement cette vulnérabilité (et son historique) ?',
    );
    click('Non');
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    click('Supprimer');
    click('Oui, supprimer');
    await until(() => expect(page.container.querySelector('h1')?.textContent).toBe('Vulnérabilité supprimée'));
    expect(text(page.container.querySelector('[role="status"]'))).toBe(
      'La vulnérabilité « Mot de passe par défaut » a été supprimée.',
    );
    const del = calls.filter((c) => c.method === 'DELETE');
    expect(del.map((c) => c.path)).toEqual(['/api/vulnerabilities/vulnerabilities/42/']);
    expect(page.container.querySelector('a[href="/vulnerabilities/list"]')).not.toBeNull();
  });

  it('says a failed delete in French and keeps the question open', async () => {
    signInAs('user');
    detailApi(() => ({ status: 409, body: { detail: 'Conflit de mise à jour.' } }));
    renderDetail();
    await until(() => expect(button('Supprimer')).toBeDefined());
    click('Supprimer');
    click('Oui, supprimer');
    await until(() =>
      expect(text(page.container.querySelector('[role="alert"]'))).toBe(
        'La suppression de la vulnérabilité a échoué : Conflit de mise à jour.',
      ),
    );
    expect(page.container.querySelector('h1')?.textContent).not.toBe('Vulnérabilité supprimée');
    expect(button('Oui, supprimer')).toBeDefined();
  });

  it('offers no edit nor delete on sample data', async () => {
    signInAs('user');
    mockApi((call) =>
      call.path === '/api/assets/' ? { body: ASSETS } : { body: finding, headers: { 'X-Vigie-Source': 'sample' } },
    );
    renderDetail();
    await until(() => expect(button('Modifier')).toBeDefined());
    expect(button('Modifier')!.disabled).toBe(true);
    expect(button('Supprimer')!.disabled).toBe(true);
    expect(button('Modifier')!.title).toBe('Données d’exemple : modification impossible.');
  });
});

describe('the findings list: a finding entered by hand (POST)', () => {
  let restore: () => void;
  beforeEach(() => {
    restore = withScrollerHeight();
  });
  afterEach(() => restore());

  function listApi(post: (call: Call) => { status?: number; body: unknown }) {
    return mockApi((call) => {
      if (call.path === '/api/assets/') return { body: ASSETS };
      if (call.method === 'POST') return post(call);
      return { body: { count: 0, next: null, previous: null, results: [] } };
    });
  }

  it('is offered to writers only', async () => {
    signInAs('readonly');
    listApi(() => ({ body: null }));
    page.render('/vulnerabilities/list', <VulnerabilityListPage />);
    await until(() => expect(page.container.textContent).toContain('Aucune vulnérabilité enregistrée'));
    expect(button('Nouvelle vulnérabilité')).toBeUndefined();
  });

  it('needs a title or a CVE, sends the chosen severity, then opens the new finding', async () => {
    signInAs('user');
    const calls = listApi((call) => ({ status: 201, body: { ...finding, id: 77, ...(call.body as object) } }));
    page.render('/vulnerabilities/list', <VulnerabilityListPage />);
    await until(() => expect(button('Nouvelle vulnérabilité')).toBeDefined());
    click('Nouvelle vulnérabilité');
    expect(formEl().textContent).toContain('Nouvelle vulnérabilité');
    submit();
    expect(formEl().textContent).toContain('Le titre est requis (ou un identifiant CVE connu).');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    type(field('CVE'), 'cve-2024-3400');
    await until(() => expect(field<HTMLSelectElement>('Actif').options.length).toBe(3));
    type(field('Actif'), '5');
    type(field('Gravité'), 'critical');
    type(field('Port'), '443');
    submit();
    await until(() => expect(window.location.pathname).toBe('/vulnerabilities/77'));
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.path).toBe('/api/vulnerabilities/vulnerabilities/');
    expect(post.body).toEqual({
      title: '',
      cve_id: 'CVE-2024-3400',
      asset_id: 5,
      cvss_score: null,
      description: '',
      solution: '',
      port: 443,
      protocol: null,
      service: null,
      severity: 'critical',
    });
  });

  it('shows the server’s 409 in French and keeps the form', async () => {
    signInAs('user');
    listApi(() => ({
      status: 409,
      body: { detail: 'Cette vulnérabilité est déjà enregistrée pour cet actif (même CVE).' },
    }));
    page.render('/vulnerabilities/list', <VulnerabilityListPage />);
    await until(() => expect(button('Nouvelle vulnérabilité')).toBeDefined());
    click('Nouvelle vulnérabilité');
    type(field('Titre'), 'Log4Shell');
    submit();
    await until(() =>
      expect(text(formEl().querySelector('[role="alert"]'))).toBe(
        'Cette vulnérabilité est déjà enregistrée pour cet actif (même CVE).',
      ),
    );
    expect(field<HTMLInputElement>('Titre').value).toBe('Log4Shell');
    expect(window.location.pathname).toBe('/vulnerabilities/list');
  });
});

describe('the finding form’s rules', () => {
  const blank: FindingTexts = {
    title: '',
    cve_id: '',
    asset_id: '',
    severity: '',
    cvss_score: '',
    port: '',
    protocol: '',
    service: '',
    description: '',
    solution: '',
  };

  it('checks what the server checks, with its French messages', () => {
    expect(validateFinding(blank, false)).toEqual({ title: 'Le titre est requis (ou un identifiant CVE connu).' });
    expect(validateFinding({ ...blank, cve_id: 'CVE-2021-44228' }, false)).toEqual({});
    // An edited finding keeps a title, CVE or not.
    expect(validateFinding({ ...blank, cve_id: 'CVE-2021-44228' }, true)).toEqual({
      title: 'Le titre est requis (ou un identifiant CVE connu).',
    });
    expect(
      validateFinding(
        { ...blank, title: 'x'.repeat(501), cve_id: 'CVE-21-1', cvss_score: '10,5', port: '70000' },
        false,
      ),
    ).toEqual({
      title: 'Le titre ne doit pas dépasser 500 caractères.',
      cve_id: 'Identifiant CVE invalide (format attendu : CVE-AAAA-NNNN).',
      cvss_score: 'Le score CVSS doit être compris entre 0 et 10.',
      port: 'Le port doit être un entier entre 0 et 65535.',
    });
    expect(validateFinding({ ...blank, title: 't', cvss_score: '7,5', port: '0' }, true)).toEqual({});
  });

  it('sends empty texts as null and a severity only when one was chosen', () => {
    expect(findingBody({ ...blank, title: ' t ', cvss_score: '7,5', protocol: ' ' })).toEqual({
      title: 't',
      cve_id: null,
      asset_id: null,
      cvss_score: 7.5,
      description: '',
      solution: '',
      port: null,
      protocol: null,
      service: null,
    });
    expect(findingBody({ ...blank, severity: 'low' }).severity).toBe('low');
  });
});
