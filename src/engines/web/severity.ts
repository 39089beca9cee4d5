/**
 * The ratings of the web scanner's rules (checks/*.ts `RULES`, gathered in checks/index.ts
 * `ALL_RULES`): the lookup the findings use, the consistency every rule keeps (its CVSS v3.1
 * vector scores its base score and its threat), and docs/WEB-SCANNER.md's table rendered from
 * the code (test/web-engine.test.ts keeps the document equal to `renderWebRuleTable()`).
 */
import { cvss31BaseScore } from '../../shared/cvss.js';
import { threatFromCvss } from '../engine.js';
import { ALL_RULES } from './checks/index.js';
import type { WebRule } from './contract.js';

/** The lookup of a rule by id among `rules`; an unknown id is a bug in a check and throws. */
export function ruleLookup(rules: readonly WebRule[]): (ruleId: string) => WebRule {
  const byId = new Map(rules.map((rule) => [rule.ruleId, rule]));
  return (ruleId) => {
    const rule = byId.get(ruleId);
    if (!rule) throw new Error(`The web scanner has no rule ${ruleId} (checks/index.ts ALL_RULES).`);
    return rule;
  };
}

/** The rule of `ruleId` among every check's rules. */
export const ruleOf = ruleLookup(ALL_RULES);

/** What is wrong with a rule's rating, or null: a vector that parses and scores its base score and its threat, a reason, a CWE. */
export function webRuleProblem(rule: WebRule): string | null {
  if (!/^rampart:web-[a-z0-9-]+$/.test(rule.ruleId)) return `${rule.ruleId}: rule ids are rampart:web-<name>`;
  if (!/^CWE-\d+$/.test(rule.cwe)) return `${rule.ruleId}: the CWE ${rule.cwe} is not CWE-<number>`;
  if (rule.reason.trim().length < 20) return `${rule.ruleId}: give a reason for the rating`;
  if (rule.cvssVector === null) return rule.cvssBase === null ? null : `${rule.ruleId}: a base score without a vector`;
  const score = cvss31BaseScore(rule.cvssVector);
  if (score === null) return `${rule.ruleId}: ${rule.cvssVector} is not a CVSS v3.1 base vector`;
  if (rule.cvssBase !== score) return `${rule.ruleId}: ${rule.cvssVector} scores ${score}, the rule says ${rule.cvssBase}`;
  const band = threatFromCvss(score);
  return band === rule.threat ? null : `${rule.ruleId}: ${rule.cvssVector} scores ${score} (${band}), the rule says ${rule.threat}`;
}

/** The line a finding's description ends with: the basis of its threat and the reason. */
export function severityBasis(rule: WebRule): string {
  const basis = rule.cvssVector === null
    ? `rated ${rule.threat} by Rampart's web rule table (docs/WEB-SCANNER.md, ${rule.ruleId})`
    : `rated ${rule.threat} by its CVSS v3.1 base score ${rule.cvssBase?.toFixed(1)} (${rule.cvssVector})`;
  return `Severity: ${basis}. ${rule.reason}`;
}

/** docs/WEB-SCANNER.md's rule table, one line per rule in ALL_RULES order. */
export function renderWebRuleTable(rules: readonly WebRule[] = ALL_RULES): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = ['| Rule id | Name | CWE | Threat | Basis | Reason |', '|---|---|---|---|---|---|'];
  for (const rule of rules) {
    const basis = rule.cvssVector === null ? 'this table' : `${rule.cvssBase?.toFixed(1)} \`${rule.cvssVector}\``;
    lines.push(`| \`${rule.ruleId}\` | ${cell(rule.name)} | ${rule.cwe} | ${rule.threat} | ${basis} | ${cell(rule.reason)} |`);
  }
  return lines.join('\n');
}
