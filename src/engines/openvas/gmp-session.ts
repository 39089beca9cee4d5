/** Logging in to gvmd: `authenticate` on a connection, or a new connection logged in. */
import { GmpConnection, type GmpEndpoint } from './gmp-connection.js';
import { gmpCommand } from './gmp-xml.js';

/** The gvmd user Rampart acts as. */
export interface GmpCredentials {
  username: string;
  password: string;
}

/** Authenticates the connection (a refusal throws a `config` EngineError naming the settings). */
export async function authenticate(conn: GmpConnection, credentials: GmpCredentials): Promise<void> {
  await conn.request(
    gmpCommand('authenticate', {}, [
      {
        name: 'credentials',
        content: [
          { name: 'username', content: credentials.username },
          { name: 'password', content: credentials.password },
        ],
      },
    ]),
  );
}

/** A new connection, logged in. */
export async function openSession(settings: GmpEndpoint & GmpCredentials): Promise<GmpConnection> {
  const conn = await GmpConnection.open(settings);
  try {
    await authenticate(conn, settings);
    return conn;
  } catch (error) {
    conn.close();
    throw error;
  }
}
