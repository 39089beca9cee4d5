/**
 * CVSS v3.1 base scores from a vector string, as the FIRST specification defines them (section 7,
 * with its Roundup of Appendix A), so that a severity given as a vector carries the score that
 * vector really has.
 *
 * Only the eight base metrics are read; a vector with temporal or environmental metrics is
 * refused rather than scored wrongly.
 */

const WEIGHTS = {
  AV: { N: 0.85, A: 0.62, L: 0.55, P: 0.2 },
  AC: { L: 0.77, H: 0.44 },
  PR: { N: 0.85, L: 0.62, H: 0.27 },
  UI: { N: 0.85, R: 0.62 },
  S: { U: 0, C: 1 },
  C: { H: 0.56, L: 0.22, N: 0 },
  I: { H: 0.56, L: 0.22, N: 0 },
  A: { H: 0.56, L: 0.22, N: 0 },
} as const;

type Metric = keyof typeof WEIGHTS;
const METRICS = Object.keys(WEIGHTS) as Metric[];

/** Privileges required weigh more when the scope changes (specification, table 16). */
const PR_CHANGED = { N: 0.85, L: 0.68, H: 0.5 } as const;

/** The base metrics of a `CVSS:3.1/AV:../AC:../...` vector, or null when it is not one. */
export function parseCvss31(vector: string): Record<Metric, string> | null {
  const [prefix, ...parts] = vector.split('/');
  if (prefix !== 'CVSS:3.1' || parts.length !== METRICS.length) return null;
  const values: Partial<Record<Metric, string>> = {};
  for (const part of parts) {
    const [metric, value] = part.split(':') as [string, string | undefined];
    if (!Object.hasOwn(WEIGHTS, metric) || values[metric as Metric] !== undefined) return null;
    if (value === undefined || !Object.hasOwn(WEIGHTS[metric as Metric], value)) return null;
    values[metric as Metric] = value;
  }
  return values as Record<Metric, string>;
}

/** The CVSS v3.1 base score of a vector (0.0-10.0), or null when the vector is not a v3.1 base vector. */
export function cvss31BaseScore(vector: string): number | null {
  const m = parseCvss31(vector);
  if (m === null) return null;
  const weight = (metric: Metric): number => (WEIGHTS[metric] as Record<string, number>)[m[metric]]!;
  const changed = m.S === 'C';
  const iss = 1 - (1 - weight('C')) * (1 - weight('I')) * (1 - weight('A'));
  const impact = changed ? 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15 : 6.42 * iss;
  const privileges = changed ? PR_CHANGED[m.PR as keyof typeof PR_CHANGED] : weight('PR');
  const exploitability = 8.22 * weight('AV') * weight('AC') * privileges * weight('UI');
  if (impact <= 0) return 0;
  return roundUp(Math.min((changed ? 1.08 : 1) * (impact + exploitability), 10));
}

/** The specification's Roundup: the smallest one-decimal number >= the input, immune to float noise. */
function roundUp(value: number): number {
  const scaled = Math.round(value * 100000);
  return scaled % 10000 === 0 ? scaled / 100000 : (Math.floor(scaled / 10000) + 1) / 10;
}
