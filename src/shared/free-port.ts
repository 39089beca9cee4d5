/**
 * A loopback TCP port that was free a moment ago: for a local helper process that must listen on
 * its own port (nuclei's metrics server), and for tests. Another process may take it before it is
 * used; callers that can listen on port 0 themselves should.
 */
import net from 'node:net';

/** Listens on 127.0.0.1 port 0, reads the port, closes. */
export function findFreeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
