/** The backups' input (docs/api-admin.md "Backups"): the note of a new backup, the typed restore confirmation. */
import { ApiError, FieldErrors } from '../../domain/errors.ts';
import { charCount } from '../../../../contract/text.ts';
import { Type } from '../common.ts';
import { UuidParams } from './common.ts';

const CONFIRMATION = 'RESTAURER';
const MAX_NOTE = 500;

export const MESSAGES = {
  confirm: `Confirmation requise : saisissez « ${CONFIRMATION} » dans « confirm » pour remplacer toutes les données par celles de la sauvegarde.`,
  note: `La note ne doit pas dépasser ${MAX_NOTE} caractères.`,
  noteType: 'La note doit être un texte.',
  body: 'Un objet JSON est attendu.',
  unknown: (key: string) => `Champ inconnu : « ${key} ».`,
  multipartRequired: 'L’archive doit être envoyée en multipart/form-data (champ file).',
  multipartInvalid: 'Requête multipart invalide.',
  unexpectedField: (name: string) => `Champ inattendu : ${name}.`,
  fileRequired: 'Le fichier est requis.',
  tooLarge: 'Fichier trop volumineux (10 Go au maximum).',
  notCompleted: 'Cette sauvegarde n’est pas terminée.',
} as const;

export const BackupParams = UuidParams('Identifiant (UUID)');
// Checked in code: the body may be left out, and an unknown key is named in its message.
export const NewBackupBody = Type.Unknown({
  description: `{"note": "…"} (facultatif, ${MAX_NOTE} caractères au plus)`,
});
export const RestoreBody = Type.Unknown({ description: `{"confirm": "${CONFIRMATION}"}` });

/** The optional note of a new backup: text, trimmed, at most MAX_NOTE characters. */
export function noteOf(raw: unknown, errors: FieldErrors): string {
  if (raw === undefined || raw === null) return '';
  if (typeof raw !== 'string') {
    errors.add('note', MESSAGES.noteType);
    return '';
  }
  const note = raw.trim();
  if (charCount(note) > MAX_NOTE) errors.add('note', MESSAGES.note);
  return note;
}

/** `{"note": "…"}` or nothing: the note of a new backup, or 400. */
export function parseNewBackup(raw: unknown): string {
  const body = raw ?? {};
  const errors = new FieldErrors();
  if (typeof body !== 'object' || Array.isArray(body)) errors.add('non_field_errors', MESSAGES.body);
  else for (const key of Object.keys(body)) if (key !== 'note') errors.add(key, MESSAGES.unknown(key));
  const note = noteOf((body as { note?: unknown }).note, errors);
  errors.throwIfAny();
  return note;
}

/** A restore replaces every table: the body must say so in words (`{"confirm": "RESTAURER"}`), else 400. */
export function checkRestoreConfirmation(raw: unknown): void {
  const confirm = (raw as { confirm?: unknown } | null | undefined)?.confirm;
  if (typeof confirm !== 'string' || confirm.trim().toUpperCase() !== CONFIRMATION) {
    throw new ApiError(400, 'confirmation_required', MESSAGES.confirm, { fields: { confirm: [MESSAGES.confirm] } });
  }
}
