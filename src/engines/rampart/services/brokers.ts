/**
 * Message brokers: NATS (speaks first: `INFO {json}`), AMQP 0-9-1 (RabbitMQ: the protocol header
 * is answered with Connection.Start, whose server properties name the product and version) and
 * MQTT 3.1.1 (a CONNECT without credentials: the CONNACK says whether anonymous clients are let in;
 * the connection is closed with DISCONNECT at once, nothing is published or subscribed).
 */
import type { Endpoint } from '../checks/check.js';
import { DETECTION_SESSION, withSession } from '../protocols/session.js';
import type { Identified } from './info.js';

/**
 * NATS: `INFO {"server_id":...,"version":"2.9.15",...}` (nats-server's greeting). The line can be
 * longer than a banner read keeps, so fields are read by pattern when the JSON is cut off.
 */
export function identifyNats(text: string): Identified | null {
  if (!/^INFO \{"server_id":"/.test(text)) return null;
  const field = (name: string) => new RegExp(`"${name}":("([^"]*)"|true|false)`).exec(text);
  const version = field('version')?.[2] ?? null;
  const auth = field('auth_required')?.[1] === 'true' ? 'required' : 'none';
  return { name: 'nats', product: 'NATS Server', version, details: { auth } };
}

/** The AMQP 0-9-1 protocol header (spec 4.2.2). */
const AMQP_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1]);

/** Reads an AMQP field table's long-string values (spec 4.2.5.5); stops at types it does not need. */
function readTableStrings(table: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < table.length) {
    const keyLength = table[i]!;
    const key = table.subarray(i + 1, i + 1 + keyLength).toString('latin1');
    i += 1 + keyLength;
    const type = String.fromCharCode(table[i] ?? 0);
    i += 1;
    if (type === 'S' || type === 'F' || type === 'x') {
      const length = table.readUInt32BE(i);
      if (type === 'S') out[key] = table.subarray(i + 4, i + 4 + length).toString('utf8');
      i += 4 + length;
    } else if (type === 't' || type === 'b' || type === 'B') i += 1;
    else if (type === 's' || type === 'u') i += 2;
    else if (type === 'I' || type === 'i' || type === 'f') i += 4;
    else if (type === 'l' || type === 'L' || type === 'd' || type === 'T') i += 8;
    else break;
  }
  return out;
}

/** AMQP: Connection.Start (class 10, method 10) carries the server properties. */
export async function probeAmqp(endpoint: Endpoint): Promise<Identified | null> {
  return withSession(endpoint, DETECTION_SESSION, null, async (session) => {
    session.write(AMQP_HEADER);
    // A frame: type (1), channel (2), size (4), payload, 0xCE.
    const frame = await session.readUntil((b) => b.length >= 7 && b.length >= 8 + b.readUInt32BE(3));
    if (frame.length < 12 || frame[0] !== 1 || frame.readUInt16BE(5 + 2) !== 10 || frame.readUInt16BE(9) !== 10) {
      // A server that answers the header with its own header speaks another AMQP version.
      return frame.subarray(0, 4).equals(AMQP_HEADER.subarray(0, 4)) ? { name: 'amqp' } : null;
    }
    const payload = frame.subarray(7, 7 + frame.readUInt32BE(3));
    // class(2) method(2) version-major(1) version-minor(1) server-properties(table)
    const tableLength = payload.readUInt32BE(6);
    const properties = readTableStrings(payload.subarray(10, 10 + tableLength));
    return { name: 'amqp', product: properties.product ?? null, version: properties.version ?? null, details: { amqp: `${payload[4]}-${payload[5]}` } };
  });
}

/** MQTT 3.1.1 CONNECT, client id `rampart`, clean session, no credentials. */
const MQTT_CONNECT = Buffer.from([0x10, 0x13, 0x00, 0x04, 0x4d, 0x51, 0x54, 0x54, 0x04, 0x02, 0x00, 0x3c, 0x00, 0x07, 0x72, 0x61, 0x6d, 0x70, 0x61, 0x72, 0x74]);
const MQTT_DISCONNECT = Buffer.from([0xe0, 0x00]);

/** MQTT: CONNACK (0x20 0x02 flags code); code 0 lets anonymous clients in, 4/5 refuse them. */
export async function probeMqtt(endpoint: Endpoint): Promise<Identified | null> {
  return withSession(endpoint, DETECTION_SESSION, null, async (session) => {
    session.write(MQTT_CONNECT);
    const reply = await session.readUntil((b) => b.length >= 4);
    if (reply.length < 4 || reply[0] !== 0x20 || reply[1] !== 0x02) return null;
    session.write(MQTT_DISCONNECT);
    const code = reply[3];
    return { name: 'mqtt', details: { auth: code === 0 ? 'none' : code === 4 || code === 5 ? 'required' : `connack ${code}` } };
  });
}
