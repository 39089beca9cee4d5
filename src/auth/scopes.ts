/** The spec's scope names. Tokens are not narrowed by scope; these describe the access model. */
export const SCOPES = [
  'scans.read',
  'scans.write',
  'vulnerabilities.read',
  'vulnerabilities.write',
  'targets.read',
  'targets.write',
  'webhooks.read',
  'webhooks.write',
] as const;
