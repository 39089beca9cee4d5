/**
 * MongoDB without authentication: one OP_MSG `{listDatabases: 1, nameOnly: true, $db: 'admin'}`.
 * `ok: 1` with a `databases` array means anyone reaching the port can read and change every
 * database; an `Unauthorized` error (code 13) means authentication is on: no finding.
 * OP_MSG needs MongoDB 3.6 or later; older servers close the connection and go unreported.
 */
import { randomInt } from 'node:crypto';
import type { Check, CheckFinding, Endpoint, ServiceInfo } from './check.js';
import { BsonError, decodeBson, encodeBson, type BsonDocument, type BsonInput } from '../protocols/bson.js';
import { MAX_BUFFERED_BYTES, withSession } from '../protocols/session.js';
import { printable } from './evidence.js';
import { severityOf } from '../severity.js';

/** https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/#op_msg */
export const OP_MSG = 2013;
/** Database names quoted as evidence; the count is always given. */
const MAX_NAMES_IN_EVIDENCE = 10;

/** The MongoDB check: applies to `mongodb`, over TLS when the service speaks it. */
export const mongodbNoAuthCheck: Check = {
  id: 'mongodb-noauth',
  appliesTo: (service: ServiceInfo) => service.name === 'mongodb',
  run: (endpoint: Endpoint, service: ServiceInfo) =>
    withSession(endpoint, { tls: service.tls }, [] as CheckFinding[], async (session) => {
      const requestId = randomInt(1, 2 ** 31 - 1);
      session.write(encodeOpMsg(requestId, 0, { listDatabases: 1, nameOnly: true, $db: 'admin' }));
      const header = await session.readBytes(16);
      if (!header) return [];
      const length = header.readInt32LE(0);
      if (header.readInt32LE(8) !== requestId || header.readInt32LE(12) !== OP_MSG || length < 21 || length > MAX_BUFFERED_BYTES) return [];
      const body = await session.readBytes(length - 16);
      if (!body || body[4] !== 0) return [];
      let reply: BsonDocument;
      try {
        reply = decodeBson(body, 5);
      } catch (error) {
        if (error instanceof BsonError) return [];
        throw error;
      }
      if (reply.ok !== 1 || !Array.isArray(reply.databases)) return [];
      const names = reply.databases.flatMap((db) => (db && typeof db === 'object' && 'name' in db && typeof db.name === 'string' ? [db.name] : []));
      const shown = names.slice(0, MAX_NAMES_IN_EVIDENCE).join(', ') + (names.length > MAX_NAMES_IN_EVIDENCE ? ', ...' : '');
      return [
        {
          ruleId: 'rampart:mongodb-noauth',
          name: 'MongoDB accessible without authentication',
          description:
            'The MongoDB server runs commands from anyone who can reach it: every database can be read, altered or dropped (exposed MongoDB servers are routinely wiped and held for ransom).',
          solution: 'Enable access control (security.authorization: enabled) with per-user roles, bind to trusted interfaces only (net.bindIp), and firewall the port.',
          ...severityOf('rampart:mongodb-noauth'),
          cve: [],
          cwe: 'CWE-306',
          evidence: printable(`listDatabases on admin succeeded without credentials (ok: 1): ${names.length} database(s)${names.length ? `: ${shown}` : ''}.`, 600),
          references: ['https://www.mongodb.com/docs/manual/administration/security-checklist/', 'https://cwe.mitre.org/data/definitions/306.html'],
        },
      ];
    }),
};

/** One OP_MSG message with a single body section (kind 0). */
function encodeOpMsg(requestId: number, responseTo: number, document: { [key: string]: BsonInput }): Buffer {
  const bson = encodeBson(document);
  const header = Buffer.alloc(20);
  header.writeInt32LE(21 + bson.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(responseTo, 8);
  header.writeInt32LE(OP_MSG, 12);
  header.writeUInt32LE(0, 16); // flagBits
  return Buffer.concat([header, Buffer.from([0]), bson]);
}
