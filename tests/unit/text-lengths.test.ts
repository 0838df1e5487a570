import { describe, expect, it } from 'vitest';
import { charCount, clipText } from '../../contract/text.ts';
import { validateAsset } from '../../src/features/assets/asset-rules.ts';
import { titleProblem, validateProject } from '../../src/features/projects/project-rules.ts';
import { validateThreat } from '../../src/features/threats/threat-rules.ts';
import { draftOf, validateTenant } from '../../src/features/admin/tenant-rules.ts';
import { validateDraft } from '../../src/features/blog/blog-editor-page.tsx';

const EMOJI = '😀';

describe('characters, not UTF-16 units', () => {
  it('counts a surrogate pair once and a lone surrogate once, as JSON Schema maxLength does', () => {
    expect(charCount('')).toBe(0);
    expect(charCount('éa')).toBe(2);
    expect(charCount(EMOJI.repeat(101))).toBe(101);
    expect(charCount('a\uD800b')).toBe(3);
    expect(charCount('\uDC00\uD800')).toBe(2);
  });

  it('clips by characters, never inside a pair', () => {
    expect(clipText(EMOJI.repeat(3), 2)).toBe(EMOJI.repeat(2));
    expect(clipText(`a${EMOJI}`, 1)).toBe('a');
    expect(clipText('abc', 5)).toBe('abc');
    expect(clipText('\uD800abc', 2)).toBe('\uD800a');
  });

  it('lets the forms take as many emoji as the server does, and no more', () => {
    const asset = {
      name: EMOJI.repeat(200),
      asset_type: 'server',
      hostname: '',
      ip_address: '',
      operating_system: '',
      criticality: 'medium',
      internet_exposed: false,
      owner: '',
      description: '',
      tags: '',
    };
    expect(validateAsset(asset)).toEqual({});
    expect(validateAsset({ ...asset, name: EMOJI.repeat(201) }).name).toBe(
      'Le nom ne doit pas dépasser 200 caractères.',
    );
    expect(validateAsset({ ...asset, asset_type: 'constructor' }).asset_type).toBe('Type d’actif inconnu.');

    const project = { name: EMOJI.repeat(200), start_date: '', deadline: '' };
    expect(validateProject(project as Parameters<typeof validateProject>[0]).name).toBeUndefined();
    expect(validateProject({ ...project, name: EMOJI.repeat(201) } as Parameters<typeof validateProject>[0]).name).toBe(
      'Le nom ne doit pas dépasser 200 caractères.',
    );
    expect(titleProblem(EMOJI.repeat(300))).toBeNull();
    expect(titleProblem(EMOJI.repeat(301))).not.toBeNull();

    expect(validateThreat({ title: EMOJI.repeat(300), cve_id: '', asset_id: '' }).title).toBeUndefined();
    expect(validateThreat({ title: EMOJI.repeat(301), cve_id: '', asset_id: '' }).title).toBeDefined();

    const tenant = { ...draftOf(), name: EMOJI.repeat(200), domain: 'exemple.fr' };
    expect(validateTenant(tenant).name).toBeUndefined();
    expect(validateTenant({ ...tenant, name: EMOJI.repeat(201) }).name).toBeDefined();

    const draft = {
      title: EMOJI.repeat(200),
      slug: '',
      excerpt: EMOJI.repeat(500),
      content: 'x',
      tags: '',
      featured_image: null,
    };
    expect(validateDraft(draft)).toEqual({});
    expect(Object.keys(validateDraft({ ...draft, title: EMOJI.repeat(201) }))).toEqual(['title']);
  });
});
