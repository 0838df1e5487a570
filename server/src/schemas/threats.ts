/** Threats (/api/threats/): the list's querystring, the write body, and their checks with the French messages. */
import { SEVERITIES, THREAT_STATUSES } from '../db/schema.ts';
import { FieldErrors } from '../domain/errors.ts';
import { contradicts, type MitigationAsked } from '../domain/threat-mitigation.ts';
import { ThreatSchema } from '../presenters/threat.ts';
import type { ThreatFilters, ThreatValues } from '../repositories/threats.ts';
import { Choice, type Static, Type, WriteBody } from './common.ts';
import { CVE_INVALID, CVE_RE, invalid, optionalText, orNull, trimmed } from './fields.ts';
import { csvOf, parseText, positiveInt, type RawQuery } from './query.ts';

const DEFAULT_SIZE = 10;
const MAX_SIZE = 100;
const MAX_TITLE = 300;
const MAX_DESCRIPTION = 20_000;
const MAX_SHORT = 200;

export const MESSAGES = {
  pageInvalid: 'Numéro de page invalide : un entier supérieur ou égal à 1 est attendu.',
  sizeInvalid: `Taille de page invalide : un entier entre 1 et ${MAX_SIZE} est attendu.`,
  severityInvalid: `Sévérité invalide. Valeurs possibles : ${SEVERITIES.join(', ')}.`,
  statusInvalid: `Statut invalide. Valeurs possibles : ${THREAT_STATUSES.join(', ')}.`,
  mitigatedInvalid: 'Valeur invalide pour is_mitigated : true ou false attendu.',
  titleRequired: 'Le titre est requis.',
  titleTooLong: `Le titre ne doit pas dépasser ${MAX_TITLE} caractères.`,
  descriptionTooLong: `La description ne doit pas dépasser ${MAX_DESCRIPTION} caractères.`,
  tooLong: (field: string) => `Le champ ${field} ne doit pas dépasser ${MAX_SHORT} caractères.`,
  contradiction: 'is_mitigated et status se contredisent : une menace atténuée a le statut MITIGATED ou CLOSED.',
} as const;

const queryText = (description: string, maxLength?: number) =>
  Type.Optional(Type.String({ description, ...(maxLength === undefined ? {} : { maxLength }) }));
export const ListThreatsQuery = Type.Object(
  {
    page: queryText('Numéro de page, à partir de 1'),
    size: queryText(`Taille de page (défaut ${DEFAULT_SIZE}, au plus ${MAX_SIZE})`),
    severity: queryText(`Sévérités séparées par des virgules : ${SEVERITIES.join(', ')}`, 200),
    status: queryText(`Statuts séparés par des virgules : ${THREAT_STATUSES.join(', ')}`, 200),
    text: queryText('Recherche dans le titre, la description, la source et la CVE', 4096),
    is_mitigated: queryText('true ou false'),
  },
  { additionalProperties: true },
);

/** The list's page (`page`, `size`: 10 by default, at most 100) and filters. */
export function readThreatList(query: RawQuery): { page: number; size: number; filters: ThreatFilters } {
  const errors = new FieldErrors();
  const page = positiveInt(query.page);
  if (page === null) errors.add('page', MESSAGES.pageInvalid);
  const size = positiveInt(query.size);
  if (size === null || (size !== undefined && size > MAX_SIZE)) errors.add('size', MESSAGES.sizeInvalid);
  const mitigated = query.is_mitigated || undefined;
  if (mitigated !== undefined && mitigated !== 'true' && mitigated !== 'false') {
    errors.add('is_mitigated', MESSAGES.mitigatedInvalid);
  }
  const filters = {
    text: parseText(errors, query, 'text'),
    severity: csvOf(errors, query.severity, SEVERITIES, 'severity', MESSAGES.severityInvalid),
    status: csvOf(errors, query.status, THREAT_STATUSES, 'status', MESSAGES.statusInvalid),
    isMitigated: mitigated === undefined ? undefined : mitigated === 'true',
  };
  errors.throwIfAny();
  return { page: page ?? 1, size: size ?? DEFAULT_SIZE, filters };
}

/** Types and sizes by the schema; trimming, defaults and the French messages by `validateThreat`. */
export const threatFields = {
  title: optionalText(4096, MESSAGES.titleTooLong),
  description: optionalText(100_000, MESSAGES.descriptionTooLong),
  threat_type: optionalText(4096, MESSAGES.tooLong('threat_type')),
  severity: Type.Optional(Choice(SEVERITIES, { errorMessage: MESSAGES.severityInvalid })),
  status: Type.Optional(Choice(THREAT_STATUSES, { errorMessage: MESSAGES.statusInvalid })),
  is_mitigated: Type.Optional(Type.Boolean()),
  source: optionalText(4096, MESSAGES.tooLong('source')),
  cve_id: orNull('string', { maxLength: 64, errorMessage: CVE_INVALID }),
  asset_id: orNull('integer'),
};
export const ThreatBody = WriteBody(ThreatSchema, threatFields);
/** The fields a threat is written with (a link to a new threat sends them too). */
export type ThreatFields = { [K in keyof typeof threatFields]?: Static<(typeof threatFields)[K]> };

/** A checked body: the columns it sets, and the mitigation it asks (domain/threat-mitigation.ts). */
export interface ThreatWrite {
  values: ThreatValues;
  asked: MitigationAsked;
}

/** Field checks with French messages, first error only; `partial` for PATCH (absent fields stay as they are). */
export function validateThreat(body: ThreatFields, partial: boolean): ThreatWrite {
  const text = (field: 'title' | 'description' | 'threat_type' | 'source', max: number, tooLong: string) =>
    trimmed(body[field], partial, field, max, tooLong, field === 'title' ? MESSAGES.titleRequired : undefined);
  const given = (value: unknown) => value !== undefined || !partial;
  const values: ThreatValues = {
    title: text('title', MAX_TITLE, MESSAGES.titleTooLong),
    description: text('description', MAX_DESCRIPTION, MESSAGES.descriptionTooLong),
    threatType: text('threat_type', MAX_SHORT, MESSAGES.tooLong('threat_type')),
    source: text('source', MAX_SHORT, MESSAGES.tooLong('source')),
    severity: given(body.severity) ? (body.severity ?? 'medium') : undefined,
    assetId: given(body.asset_id) ? (body.asset_id ?? null) : undefined,
  };
  if (values.threatType === '') values.threatType = 'other';
  if (given(body.cve_id)) {
    const cve = (body.cve_id ?? '').trim().toUpperCase();
    if (cve !== '' && !CVE_RE.test(cve)) throw invalid('cve_id', CVE_INVALID);
    values.cveId = cve || null;
  }
  const asked = { status: body.status, isMitigated: body.is_mitigated };
  if (contradicts(asked)) throw invalid('is_mitigated', MESSAGES.contradiction);
  return { values, asked };
}
