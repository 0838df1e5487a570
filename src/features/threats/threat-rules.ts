import { charCount } from '../../../contract/text.ts';
import { SEVERITIES, SEVERITY_FULL_LABELS } from '../../../contract/severity.ts';
import { THREAT_STATUS_LABELS } from '../../../contract/threats.ts';
import type { ThreatInput, ThreatStatus } from './threats-api.ts';

/** Threats spell « info » out: « Information ». */
export { SEVERITIES, SEVERITY_FULL_LABELS as SEVERITY_LABELS, THREAT_STATUS_LABELS };

export const THREAT_STATUS_TONE: Record<ThreatStatus, string> = {
  ACTIVE: 'failed',
  INVESTIGATING: 'running',
  MITIGATED: 'ok',
  CLOSED: 'pending',
};

export const THREAT_TYPES: Record<string, string> = {
  malware: 'Logiciel malveillant',
  ransomware: 'Rançongiciel',
  phishing: 'Hameçonnage',
  intrusion: 'Intrusion',
  exploit: 'Exploitation de vulnérabilité',
  ddos: 'Déni de service',
  insider: 'Menace interne',
  data_leak: 'Fuite de données',
  brute_force: 'Force brute',
  fraud: 'Fraude',
  other: 'Autre',
};

export function label<T extends string>(labels: Record<T, string>, value: string): string {
  return (labels as Record<string, string>)[value] ?? value;
}

export const CVE_ID = /^CVE-\d{4}-\d{4,}$/i;

export type ThreatFieldErrors = Partial<Record<keyof ThreatInput, string>>;

/** The server's rules, checked before sending: a title, a well-formed CVE id, a positive asset id. */
export function validateThreat(input: { title: string; cve_id: string; asset_id: string }): ThreatFieldErrors {
  const errors: ThreatFieldErrors = {};
  if (input.title.trim() === '') errors.title = 'Le titre est obligatoire.';
  else if (charCount(input.title.trim()) > 300) errors.title = 'Le titre ne doit pas dépasser 300 caractères.';
  if (input.cve_id.trim() !== '' && !CVE_ID.test(input.cve_id.trim()))
    errors.cve_id = 'Identifiant CVE invalide (format CVE-AAAA-NNNN).';
  if (input.asset_id.trim() !== '' && !/^\d+$/.test(input.asset_id.trim()))
    errors.asset_id = 'L’identifiant d’actif doit être un nombre entier.';
  return errors;
}

/**
 * Why a threats call failed, in French and without a final period: no answer, a server error, or the server's own
 * words (a refusal, a missing threat).
 */
export function failureReason(status: number, message: string): string {
  if (status === 0) return 'le serveur n’a pas répondu';
  if (status >= 500) return 'le serveur est en erreur';
  return message.trim().replace(/\.$/, '');
}
