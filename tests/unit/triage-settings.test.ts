import { describe, expect, it } from 'vitest';
import { draftOf, settingsOf, validateTriage } from '../../src/features/vulnerabilities/triage-settings-rules.ts';

const settings = { critical: 7, high: 30, medium: 90, low: 180, info: null, unrated: null, epss_threshold: 0.1 };

describe('triage settings rules', () => {
  it('shows the threshold in percent and empty days as no deadline, and sends them back as the API takes them', () => {
    const draft = draftOf(settings);
    expect(draft).toEqual({
      critical: '7',
      high: '30',
      medium: '90',
      low: '180',
      info: '',
      unrated: '',
      epss_percent: '10',
    });
    expect(validateTriage(draft)).toEqual({});
    expect(settingsOf(draft)).toEqual(settings);
    expect(settingsOf({ ...draft, epss_percent: '2,5', info: ' 365 ' })).toEqual({
      ...settings,
      info: 365,
      epss_threshold: 0.025,
    });
    expect(draftOf({ ...settings, epss_threshold: 0.075 }).epss_percent).toBe('7,5');
    // « Non évaluée » has its own days, sent as the others; an older backend's answer without them reads empty.
    expect(settingsOf({ ...draft, unrated: '14' }).unrated).toBe(14);
    const { unrated: _omitted, ...older } = settings;
    expect(draftOf(older).unrated).toBe('');
    expect(validateTriage({ ...draft, unrated: '0' }).unrated).toBe(
      'Un nombre entier de jours entre 1 et 3650, ou vide pour aucun délai.',
    );
    expect(settingsOf({ ...draft, epss_percent: '100' }).epss_threshold).toBe(1);
  });

  it('refuses days out of 1–3650 and a threshold out of ]0, 100] %', () => {
    const draft = draftOf(settings);
    for (const days of ['0', '3651', '2.5', 'sept', '-1'])
      expect(validateTriage({ ...draft, high: days }).high, days).toBe(
        'Un nombre entier de jours entre 1 et 3650, ou vide pour aucun délai.',
      );
    for (const percent of ['0', '100,5', '', 'dix', '-5'])
      expect(validateTriage({ ...draft, epss_percent: percent }).epss_percent, percent).toBe(
        'Un pourcentage supérieur à 0 et au plus 100 (10 par défaut).',
      );
  });
});
