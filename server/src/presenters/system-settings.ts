import { Choice, Type, type TSchema } from '../schemas/common.ts';
import { SETTING_RULES } from '../services/system-settings.ts';

/** The spec §3 settings on the wire: every key of SETTING_RULES, typed by its rule. */
export const SystemSettingsSchema = Type.Object(
  Object.fromEntries(
    Object.entries(SETTING_RULES).map(([key, rule]): [string, TSchema] => {
      if (rule.kind === 'boolean') return [key, Type.Boolean()];
      if (rule.kind === 'integer') return [key, Type.Integer({ minimum: rule.min, maximum: rule.max })];
      if (rule.kind === 'choice') return [key, Choice(rule.choices)];
      return [key, Type.String({ maxLength: rule.max })];
    }),
  ),
  { title: 'SystemSettings' },
);
