/**
 * MongoDB: OP_MSG commands on database `admin` (wire protocol 3.6+): `hello` (with `isMaster`
 * as the fallback of servers older than 4.4.2), `buildInfo` for the version, and `listDatabases`
 * with `nameOnly` to learn whether the server demands authentication (`Unauthorized`, code 13).
 * The database names it may return are not kept.
 */
import { DETECTION_SESSION, withSession, type Session } from '../protocols/session.js';
import { decodeBson, encodeBson, type BsonDocument } from '../protocols/bson.js';
import type { Identified } from './info.js';
import type { Endpoint } from '../checks/check.js';

const OP_MSG = 2013;
const UNAUTHORIZED = 13;

/** An OP_MSG with one body section (kind 0) holding `command`. */
export function opMsg(requestId: number, command: Record<string, string | number | boolean>): Buffer {
  const body = encodeBson(command);
  const head = Buffer.alloc(21);
  head.writeInt32LE(21 + body.length, 0);
  head.writeInt32LE(requestId, 4);
  head.writeInt32LE(0, 8); // responseTo
  head.writeInt32LE(OP_MSG, 12);
  head.writeUInt32LE(0, 16); // flagBits
  head.writeUInt8(0, 20); // section kind 0: body
  return Buffer.concat([head, body]);
}

const messageComplete = (received: Buffer): boolean => received.length >= 4 && received.length >= received.readInt32LE(0);

/** Sends one command and returns the reply's body document, or null when the answer is not one. */
async function runCommand(
  session: Session,
  requestId: number,
  command: Record<string, string | number | boolean>,
): Promise<BsonDocument | null> {
  session.write(opMsg(requestId, command));
  const reply = await session.readUntil(messageComplete);
  if (reply.length < 21 || reply.readInt32LE(12) !== OP_MSG || reply.readInt32LE(8) !== requestId) return null;
  if (reply.readUInt8(20) !== 0) return null;
  try {
    return decodeBson(reply, 21);
  } catch {
    return null;
  }
}

const isOk = (reply: BsonDocument | null): boolean => reply !== null && Number(reply.ok) === 1;

/** Identifies MongoDB by its handshake reply (`maxWireVersion`); null when nothing answers like it. */
export function probeMongo(endpoint: Endpoint): Promise<Identified | null> {
  return withSession(endpoint, DETECTION_SESSION, null, async (session) => {
    let hello = await runCommand(session, 1, { hello: 1, $db: 'admin' });
    if (hello !== null && !isOk(hello) && !endpoint.signal.aborted) {
      hello = await runCommand(session, 2, { isMaster: 1, $db: 'admin' });
    }
    if (!isOk(hello) || hello === null || hello.maxWireVersion === undefined) return null;

    const details: Record<string, string> = { max_wire_version: String(hello.maxWireVersion) };
    if (hello.msg === 'isdbgrid') details.role = 'mongos';
    if (typeof hello.setName === 'string') details.replica_set = hello.setName;
    let version: string | null = null;
    if (!endpoint.signal.aborted) {
      const build = await runCommand(session, 3, { buildInfo: 1, $db: 'admin' });
      if (isOk(build) && typeof build?.version === 'string') version = build.version;
    }
    if (!endpoint.signal.aborted) {
      const list = await runCommand(session, 4, { listDatabases: 1, nameOnly: true, $db: 'admin' });
      if (isOk(list)) details.auth = 'none';
      else if (list !== null && Number(list.code) === UNAUTHORIZED) details.auth = 'required';
    }
    return { name: 'mongodb', product: 'MongoDB', version, details };
  });
}
