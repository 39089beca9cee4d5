/**
 * Services that answer without authentication. One `Check` per protocol, each in its own
 * `unauth-<protocol>.ts`; this file gathers them and holds the table of choices.
 *
 * | Rule id                          | Threat | CWE     | Finding when                                                |
 * |----------------------------------|--------|---------|-------------------------------------------------------------|
 * | `rampart:redis-noauth`           | Critical | CWE-306 | `INFO server` answers `redis_version:` without AUTH          |
 * | `rampart:mongodb-noauth`         | Critical | CWE-306 | OP_MSG `listDatabases` answers `ok: 1` with `databases`      |
 * | `rampart:elasticsearch-noauth`   | Critical | CWE-306 | `GET /` answers 200 with a cluster's JSON (version.number)   |
 * | `rampart:memcached-noauth`       | Medium | CWE-306 | `stats` answers `STAT pid ...`                               |
 * | `rampart:ftp-anonymous`          | Medium | CWE-284 | `USER anonymous` / `PASS rampart@example.com` answers 230    |
 * | `rampart:ftp-anonymous-write`    | High   | CWE-732 | MLSD `perm=` grants create, or the listing shows a directory writable by everyone or by the session's account (inferred, QoD 70/50: nothing is written) |
 * | `rampart:ftp-sensitive-files`    | Medium | CWE-538 | the anonymous listing shows dumps, backups, archives, keys, credentials or configuration by name |
 * | `rampart:rsync-modules-listed`   | Medium | CWE-200 | `#list` returns at least one module                         |
 *
 * Threats come from the severity table (`../severity.ts`, docs/SEVERITY.md). Why: the Critical ones
 * hand any client full read/write control of the data (and, for Redis, often code execution); memcached holds only a cache, anonymous FTP is sometimes a deliberate public
 * archive, and an rsync listing discloses more than it grants. Anonymous FTP is the only login
 * any check attempts here; the MySQL empty-password login (checks/mysql.ts) is the only other.
 */
import type { Check } from './check.js';
import { elasticsearchNoAuthCheck } from './unauth-elasticsearch.js';
import { ftpAnonymousCheck } from './unauth-ftp.js';
import { memcachedNoAuthCheck } from './unauth-memcached.js';
import { mongodbNoAuthCheck } from './unauth-mongodb.js';
import { redisNoAuthCheck } from './unauth-redis.js';
import { rsyncModulesCheck } from './unauth-rsync.js';

export { elasticsearchNoAuthCheck, ftpAnonymousCheck, memcachedNoAuthCheck, mongodbNoAuthCheck, redisNoAuthCheck, rsyncModulesCheck };

/** Every unauthenticated-access check, for the engine's check registry. */
export const unauthChecks: readonly Check[] = [
  redisNoAuthCheck,
  memcachedNoAuthCheck,
  mongodbNoAuthCheck,
  elasticsearchNoAuthCheck,
  ftpAnonymousCheck,
  rsyncModulesCheck,
];
