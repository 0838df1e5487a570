import type { Severity } from '../db/schema.ts';
import { cweIds, findingKey, isObject, list, paragraphs, str, strings, type Json } from './fields.ts';
import { parseScore, severityFromScore } from './severity.ts';
import { MESSAGES, ReportError, type Finding, type FindingAsset } from './types.ts';

/** A SARIF 2.1.0 log (CodeQL, Semgrep… static analysis): `version: "2.1.0"` and its `runs`. */
export function isSarif(doc: unknown): doc is Json {
  return isObject(doc) && doc.version === '2.1.0' && Array.isArray(doc.runs);
}

// SARIF's levels without a security-severity: 'error' is a likely flaw, 'note' a remark.
const LEVELS: Record<string, Severity> = { error: 'high', warning: 'medium', note: 'low', none: 'info' };

const textOf = (message: unknown): string | undefined => (isObject(message) ? str(message.text) : undefined);

/** The run's repository as the tool names it (versionControlProvenance), else the tool's name. */
function runAsset(run: Json, tool: string): FindingAsset {
  const repository = list(run.versionControlProvenance)
    .map((p) => str(p.repositoryUri))
    .find(Boolean);
  return { name: repository ?? `Code analysé par ${tool}`, asset_type: 'application' };
}

/** The rule a result refers to: by index (result.ruleIndex or result.rule.index), else by id. */
function ruleOf(rules: Json[], result: Json, ruleId: string | undefined): Json | undefined {
  const ref = isObject(result.rule) ? result.rule : {};
  const index = typeof result.ruleIndex === 'number' ? result.ruleIndex : ref.index;
  if (typeof index === 'number' && Number.isInteger(index) && rules[index]) return rules[index];
  return ruleId ? rules.find((r) => str(r.id) === ruleId) : undefined;
}

/** A result's message: its text, else the rule's message string with its {0}-style arguments filled in. */
function messageOf(result: Json, rule: Json | undefined): string | undefined {
  const message = isObject(result.message) ? result.message : {};
  const text = str(message.text);
  if (text) return text;
  const id = str(message.id);
  const templates = rule && isObject(rule.messageStrings) ? rule.messageStrings : {};
  const template = id && Object.hasOwn(templates, id) ? textOf(templates[id]) : undefined;
  const args = strings(message.arguments);
  return template?.replace(/\{(\d+)\}/g, (whole, n: string) => args[Number(n)] ?? whole);
}

/** Where a result is: its first physical location's file (or the run's artifact it points to) and start line. */
function locationOf(run: Json, result: Json): { uri: string | undefined; line: number | undefined } {
  const physical = list(result.locations)
    .map((l) => (isObject(l.physicalLocation) ? l.physicalLocation : undefined))
    .find(Boolean);
  const artifact = physical && isObject(physical.artifactLocation) ? physical.artifactLocation : {};
  const indexed = typeof artifact.index === 'number' ? list(run.artifacts)[artifact.index] : undefined;
  const indexedLocation = indexed && isObject(indexed.location) ? indexed.location : {};
  const region = physical && isObject(physical.region) ? physical.region : {};
  const line = typeof region.startLine === 'number' && region.startLine > 0 ? region.startLine : undefined;
  return { uri: str(artifact.uri) ?? str(indexedLocation.uri), line };
}

/** Results that are no problem: a passed check, a suppressed one, one the baseline says is gone. */
function isProblem(result: Json): boolean {
  const kind = str(result.kind) ?? 'fail';
  if (kind !== 'fail' && kind !== 'open' && kind !== 'review') return false;
  if (result.baselineState === 'absent') return false;
  // A suppression without a status is accepted (SARIF §3.35.3).
  return !list(result.suppressions).some((s) => s.status === undefined || s.status === 'accepted');
}

/**
 * SARIF 2.1.0: one finding per result, keyed by rule and place (ruleId|file:line). The severity is the rule's
 * `security-severity` (a CVSS-like score, as GitHub code scanning reads it) when given, else the result's level.
 */
export function parseSarif(doc: unknown): Finding[] {
  if (!isSarif(doc)) throw new ReportError(400, 'report_malformed', MESSAGES.notSarif);
  const findings: Finding[] = [];
  for (const run of list(doc.runs)) {
    const toolObject = isObject(run.tool) ? run.tool : {};
    const driver = isObject(toolObject.driver) ? toolObject.driver : {};
    const tool = str(driver.name) ?? 'SARIF';
    const rules = list(driver.rules);
    const asset = runAsset(run, tool);
    for (const result of list(run.results)) {
      if (!isProblem(result)) continue;
      const ruleRef = isObject(result.rule) ? result.rule : {};
      const ruleId = str(result.ruleId) ?? str(ruleRef.id);
      const rule = ruleOf(rules, result, ruleId);
      const id = ruleId ?? str(rule?.id);
      if (!id) continue;
      const properties = rule && isObject(rule.properties) ? rule.properties : {};
      const securitySeverity = parseScore(properties['security-severity']);
      const defaults = rule && isObject(rule.defaultConfiguration) ? rule.defaultConfiguration : {};
      // SARIF's default level is 'warning' (§3.27.10).
      const level = str(result.level) ?? str(defaults.level) ?? 'warning';
      const severity =
        securitySeverity !== undefined
          ? severityFromScore(securitySeverity)
          : Object.hasOwn(LEVELS, level)
            ? LEVELS[level]!
            : 'medium';
      const { uri, line } = locationOf(run, result);
      const place = uri ? `${uri}${line !== undefined ? `:${line}` : ''}` : undefined;
      findings.push({
        asset,
        finding_key: findingKey(`sarif:${id}`, place),
        title: textOf(rule?.shortDescription) ?? str(rule?.name) ?? id,
        description: paragraphs(
          messageOf(result, rule),
          textOf(rule?.fullDescription),
          place ? `Emplacement : ${uri}${line !== undefined ? `, ligne ${line}` : ''}` : undefined,
          `Règle ${id} (${tool}).`,
        ),
        severity,
        cwe_ids: cweIds(strings(properties.tags).filter((t) => /cwe/i.test(t))),
        solution: textOf(rule?.help) ?? '',
        location: place,
      });
    }
  }
  return findings;
}
