/**
 * Scans (/api/vulnerabilities/scans/): the list's querystring, the write body, the import's text fields, and their
 * checks with the French messages.
 */
import { SCANNERS, SCAN_STATUSES } from '../db/schema.ts';
import { FieldErrors } from '../domain/errors.ts';
import { charCount } from '../../../contract/text.ts';
import { ScanSchema } from '../presenters/scan.ts';
import type { ScanValues } from '../repositories/scans.ts';
import { REPORT_FORMATS, type FormatChoice } from '../scan-reports/index.ts';
import { Choice, ListQuery, type Static, Type, WriteBody } from './common.ts';
import { ASSET_UNKNOWN, invalid, optionalText, orNull, trimmed } from './fields.ts';
import { csvOf, parseId, parsePaging, type RawQuery } from './query.ts';

export const MAX_SCAN_NAME = 200;
export const MAX_SCAN_TARGET = 1000;

export const MESSAGES = {
  statusInvalid: `Statut invalide. Valeurs possibles : ${SCAN_STATUSES.join(', ')}.`,
  scannerInvalid: `Scanner invalide. Valeurs possibles : ${SCANNERS.join(', ')}.`,
  nameRequired: 'Le nom du scan est requis.',
  nameTooLong: `Le nom ne doit pas dépasser ${MAX_SCAN_NAME} caractères.`,
  targetTooLong: `La cible ne doit pas dépasser ${MAX_SCAN_TARGET} caractères.`,
  formatInvalid: `Format invalide. Valeurs possibles : auto, ${REPORT_FORMATS.join(', ')}.`,
  startInvalid: 'Valeur invalide pour start : true ou false attendu.',
  multipartRequired: 'Le rapport doit être envoyé en multipart/form-data (champ file).',
} as const;

export const ListScansQuery = ListQuery({
  status: `Statuts séparés par des virgules : ${SCAN_STATUSES.join(', ')}`,
  scanner: `Scanners séparés par des virgules : ${SCANNERS.join(', ')}`,
});

/** The list's paging and its status and scanner filters. */
export function readScanList(query: RawQuery) {
  const errors = new FieldErrors();
  const paging = parsePaging(errors, query);
  const filters = {
    status: csvOf(errors, query.status, SCAN_STATUSES, 'status', MESSAGES.statusInvalid),
    scanner: csvOf(errors, query.scanner, SCANNERS, 'scanner', MESSAGES.scannerInvalid),
  };
  errors.throwIfAny();
  return { paging, filters };
}

/** Types and sizes by the schema; trimming, the default scanner and the French messages by `validateScan`. */
export const ScanBody = WriteBody(ScanSchema, {
  name: optionalText(4096, MESSAGES.nameTooLong),
  scanner: Type.Optional(Choice(SCANNERS, { errorMessage: MESSAGES.scannerInvalid })),
  target: orNull('string', { maxLength: 4096, errorMessage: { maxLength: MESSAGES.targetTooLong } }),
  asset_id: orNull('integer'),
});
type ScanBody = Static<typeof ScanBody>;

/** Checks a create/update body; `partial` for PATCH (absent fields stay as they are). */
export function validateScan(body: ScanBody, partial: boolean): ScanValues {
  const given = (value: unknown) => value !== undefined || !partial;
  return {
    name: trimmed(body.name, partial, 'name', MAX_SCAN_NAME, MESSAGES.nameTooLong, MESSAGES.nameRequired),
    scanner: given(body.scanner) ? (body.scanner ?? 'manual') : undefined,
    target: trimmed(body.target, partial, 'target', MAX_SCAN_TARGET, MESSAGES.targetTooLong),
    assetId: given(body.asset_id) ? (body.asset_id ?? null) : undefined,
  };
}

/** The import's text fields; any other is refused. */
export const IMPORT_FIELDS = ['name', 'format', 'asset_id', 'start'];

export interface ImportOptions {
  name: string;
  format: FormatChoice;
  start: boolean;
  assetId: number | undefined;
}

/** The import's text fields: name, format (auto by default), asset_id, start (true by default). */
export function importOptions(fields: Record<string, string>): ImportOptions {
  const name = (fields.name ?? '').trim();
  if (charCount(name) > MAX_SCAN_NAME) throw invalid('name', MESSAGES.nameTooLong);
  const format = (fields.format ?? 'auto').trim() || 'auto';
  if (format !== 'auto' && !(REPORT_FORMATS as readonly string[]).includes(format)) {
    throw invalid('format', MESSAGES.formatInvalid);
  }
  const start = (fields.start ?? 'true').trim().toLowerCase();
  if (!['true', 'false', '1', '0'].includes(start)) throw invalid('start', MESSAGES.startInvalid);
  let assetId: number | undefined;
  if (fields.asset_id !== undefined && fields.asset_id.trim() !== '') {
    assetId = parseId(fields.asset_id.trim());
    if (assetId === undefined) throw invalid('asset_id', ASSET_UNKNOWN);
  }
  return { name, format: format as FormatChoice, start: start === 'true' || start === '1', assetId };
}
