// The checks the platform's settings and security policies share: one wording for a yes/no value and for a
// bounded integer, whichever page the administrator changes.

const number = new Intl.NumberFormat('fr-FR');

/** An integer setting's accepted range and the unit its message names. */
export interface IntegerRule {
  min: number;
  max: number;
  unit: string;
}

/** The French refusal of a yes/no value, or null when it is acceptable. */
export function booleanProblem(key: string, value: unknown): string | null {
  return typeof value === 'boolean' ? null : `« ${key} » doit être vrai ou faux.`;
}

/** The French refusal of a bounded integer, or null when it is acceptable. */
export function integerProblem(key: string, value: unknown, rule: IntegerRule): string | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= rule.min && value <= rule.max
    ? null
    : `« ${key} » doit être un entier entre ${number.format(rule.min)} et ${number.format(rule.max)} (${rule.unit}).`;
}
