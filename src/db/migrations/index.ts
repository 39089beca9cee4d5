/**
 * The forward-only migration set, in order. Never edit a migration that has shipped: add the next.
 * Names sort lexically, which is the order Kysely applies them in.
 */
import type { Migration } from 'kysely';
import * as foundation from './0001-foundation.js';
import * as scansRuns from './0002-scans-runs.js';
import * as vulndb from './0003-vulndb.js';
import * as runNotes from './0004-run-notes.js';
import * as findingIndexes from './0005-finding-indexes.js';
import * as findingLifecycle from './0006-finding-lifecycle.js';
import * as findingSearch from './0007-finding-search.js';
import * as reports from './0008-reports.js';
import * as webhooks from './0009-webhooks.js';
import * as webhookAttempts from './0010-webhook-attempts.js';
import * as agentClaims from './0011-agent-claims.js';
import * as findingDefaultOrder from './0012-finding-default-order.js';
import * as findingLocation from './0013-finding-location.js';
import * as engineOptions from './0014-engine-options.js';
import * as runRecorder from './0015-run-recorder.js';
import * as findingQod from './0016-finding-qod.js';
import * as vulndbConfigurations from './0017-vulndb-configurations.js';
import * as cveIdentity from './0018-cve-identity.js';
import * as loginScriptText from './0019-login-script-text.js';
import * as webAccounts from './0020-web-accounts.js';
import * as localAgent from './0021-local-agent.js';

export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-scans-runs': scansRuns,
  '0003-vulndb': vulndb,
  '0004-run-notes': runNotes,
  '0005-finding-indexes': findingIndexes,
  '0006-finding-lifecycle': findingLifecycle,
  '0007-finding-search': findingSearch,
  '0008-reports': reports,
  '0009-webhooks': webhooks,
  '0010-webhook-attempts': webhookAttempts,
  '0011-agent-claims': agentClaims,
  '0012-finding-default-order': findingDefaultOrder,
  '0013-finding-location': findingLocation,
  '0014-engine-options': engineOptions,
  '0015-run-recorder': runRecorder,
  '0016-finding-qod': findingQod,
  '0017-vulndb-configurations': vulndbConfigurations,
  '0018-cve-identity': cveIdentity,
  '0019-login-script-text': loginScriptText,
  '0020-web-accounts': webAccounts,
  '0021-local-agent': localAgent,
};
