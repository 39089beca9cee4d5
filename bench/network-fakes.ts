/**
 * bench/network-fakes: the Node servers of bench/network's test network that stand in for daemons
 * this machine does not have (Apache httpd, a hardened web server, netkit telnetd). Run inside a
 * host's network namespace by bench/network-hosts.ts:
 *
 *   node dist/bench/network-fakes.js <apache|hardened-web|telnet> <address> [cert.pem key.pem]
 *
 * Prints `ready` once every listener is bound. The pages are copies of what the real servers
 * send (Apache 2.4.62 on Debian 12: its autoindex, mod_status and error pages; Debian's
 * security.conf turns TRACE off), so content checks meet real markers, not invented ones.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

const [kind, address, certFile, keyFile] = process.argv.slice(2);
if (!kind || !address) {
  console.error('usage: network-fakes <apache|hardened-web|telnet> <address> [cert key]');
  process.exit(2);
}

const APACHE = 'Apache/2.4.62 (Debian)';
const signature = (port: number) => `<address>${APACHE} Server at ${address} Port ${port}</address>`;

function apacheError(res: http.ServerResponse, status: number, title: string, text: string, port: number): void {
  const body = `<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>${status} ${title}</title>\n</head><body>\n<h1>${title}</h1>\n<p>${text}</p>\n<hr>\n${signature(port)}\n</body></html>\n`;
  res.writeHead(status, { Server: APACHE, 'Content-Type': 'text/html; charset=iso-8859-1', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

const SQL_DUMP = `-- MariaDB dump 10.19  Distrib 10.11.6-MariaDB, for debian-linux-gnu (x86_64)
--
-- Host: localhost    Database: shop
-- ------------------------------------------------------
-- Server version\t10.11.6-MariaDB-0+deb12u1

DROP TABLE IF EXISTS \`customers\`;
CREATE TABLE \`customers\` (
  \`id\` int(11) NOT NULL AUTO_INCREMENT,
  \`email\` varchar(255) NOT NULL,
  \`password_hash\` char(60) NOT NULL,
  PRIMARY KEY (\`id\`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO \`customers\` VALUES (1,'alice@example.test','$2y$10$abcdefghijklmnopqrstuuJ0TmVxYWZdFf6v2gqv5yVQfP1n5w2y');
`;

const INDEX_PAGE = `<!DOCTYPE html>
<html><head><title>Shop intranet</title></head>
<body><h1>Shop intranet</h1>
<ul><li><a href="/about.html">About</a></li><li><a href="/backups/">Nightly backups</a></li></ul>
</body></html>
`;

function listing(port: number): string {
  return `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<html>
 <head>
  <title>Index of /backups</title>
 </head>
 <body>
<h1>Index of /backups</h1>
  <table>
   <tr><th valign="top"><img src="/icons/blank.gif" alt="[ICO]"></th><th><a href="?C=N;O=D">Name</a></th><th><a href="?C=M;O=A">Last modified</a></th><th><a href="?C=S;O=A">Size</a></th><th><a href="?C=D;O=A">Description</a></th></tr>
   <tr><th colspan="5"><hr></th></tr>
<tr><td valign="top"><img src="/icons/back.gif" alt="[PARENTDIR]"></td><td><a href="/">Parent Directory</a></td><td>&nbsp;</td><td align="right">  - </td><td>&nbsp;</td></tr>
<tr><td valign="top"><img src="/icons/unknown.gif" alt="[   ]"></td><td><a href="db.sql.bak">db.sql.bak</a></td><td align="right">2026-11-20 03:00  </td><td align="right">${(SQL_DUMP.length / 1024).toFixed(1)}K</td><td>&nbsp;</td></tr>
<tr><td valign="top"><img src="/icons/text.gif" alt="[TXT]"></td><td><a href="README.txt">README.txt</a></td><td align="right">2026-10-02 11:15  </td><td align="right">120 </td><td>&nbsp;</td></tr>
   <tr><th colspan="5"><hr></th></tr>
</table>
${signature(port)}
</body></html>
`;
}

function serverStatus(port: number): string {
  const now = new Date().toUTCString();
  return `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<html><head>
<title>Apache Status</title>
</head><body>
<h1>Apache Server Status for ${address} (via ${address})</h1>

<dl><dt>Server Version: ${APACHE}</dt>
<dt>Server MPM: event</dt>
<dt>Server Built: 2024-10-04T15:21:08
</dt></dl><hr /><dl>
<dt>Current Time: ${now}</dt>
<dt>Restart Time: ${now}</dt>
<dt>Parent Server Config. Generation: 1</dt>
<dt>Parent Server MPM Generation: 0</dt>
<dt>Server uptime:  5 hours 27 minutes 16 seconds</dt>
<dt>Server load: 0.08 0.05 0.01</dt>
<dt>Total accesses: 1843 - Total Traffic: 5.2 MB - Total Duration: 2113</dt>
<dt>CPU Usage: u.71 s.52 cu0 cs0 - .00627% CPU load</dt>
<dt>.0939 requests/sec - 277 B/second - 2958 B/request - 1.14648 ms/request</dt>
<dt>1 requests currently being processed, 49 idle workers</dt>
</dl><table rules="all" cellpadding="1%">
<tr><th rowspan="2">Slot</th><th rowspan="2">PID</th><th rowspan="2">Stopping</th><th colspan="2">Connections</th>
<th colspan="2">Threads</th><th colspan="3">Async connections</th></tr>
<tr><th>total</th><th>accepting</th><th>busy</th><th>idle</th><th>writing</th><th>keep-alive</th><th>closing</th></tr>
<tr><td>0</td><td>1123</td><td>no</td><td>0</td><td>yes</td><td>1</td><td>24</td><td>0</td><td>0</td><td>0</td></tr>
<tr><td>1</td><td>1124</td><td>no</td><td>0</td><td>yes</td><td>0</td><td>25</td><td>0</td><td>0</td><td>0</td></tr>
</table>
<pre>_W________________________________________________..............
................................................................
</pre>
<p>Scoreboard Key:<br />
"<b><code>_</code></b>" Waiting for Connection,
"<b><code>S</code></b>" Starting up,
"<b><code>R</code></b>" Reading Request,<br />
"<b><code>W</code></b>" Sending Reply,
"<b><code>K</code></b>" Keepalive (read),
"<b><code>.</code></b>" Open slot with no current process<br />
</p>
<table border="0"><tr><th>Srv</th><th>PID</th><th>Acc</th><th>M</th><th>CPU
</th><th>SS</th><th>Req</th><th>Dur</th><th>Conn</th><th>Child</th><th>Slot</th><th>Client</th><th>Protocol</th><th>VHost</th><th>Request</th></tr>
<tr><td><b>0-0</b></td><td>1123</td><td>0/12/912</td><td><b>W</b>
</td><td>0.31</td><td>0</td><td>0</td><td>1021</td><td>0.0</td><td>0.02</td><td>2.51
</td><td>10.0.4.17</td><td>http/1.1</td><td nowrap>shop.example.test:80</td><td nowrap>GET /server-status HTTP/1.1</td></tr>
</table>
<hr /> <table>
 <tr><th>Srv</th><td>Child Server number - generation</td></tr>
 <tr><th>PID</th><td>OS process ID</td></tr>
 <tr><th>Acc</th><td>Number of accesses this connection / this child / this slot</td></tr>
</table>
${signature(port)}
</body></html>
`;
}

/** Apache 2.4 as Debian 12 ships it, with an autoindexed backup folder and mod_status open to all. */
function apache(port: number): http.Server {
  return http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'TRACE') return apacheError(res, 405, 'Method Not Allowed', `The requested method TRACE is not allowed for this URL.`, port);
    const page = (type: string, body: string) => {
      res.writeHead(200, { Server: APACHE, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Last-Modified': 'Fri, 20 Nov 2026 03:00:00 GMT' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    switch (url.pathname) {
      case '/':
      case '/index.html':
        return page('text/html', INDEX_PAGE);
      case '/about.html':
        return page('text/html', '<!DOCTYPE html><html><head><title>About</title></head><body><p>Internal tools. <a href="/">Home</a></p></body></html>\n');
      case '/backups':
        res.writeHead(301, { Server: APACHE, Location: `http://${address}/backups/`, 'Content-Type': 'text/html; charset=iso-8859-1' });
        return res.end();
      case '/backups/':
        return page('text/html;charset=UTF-8', listing(port));
      case '/backups/db.sql.bak':
        return page('application/x-trash', SQL_DUMP);
      case '/backups/README.txt':
        return page('text/plain', 'Nightly dumps of the shop database, kept 7 days.\n');
      case '/server-status':
        return page('text/html; charset=ISO-8859-1', serverStatus(port));
      default:
        return apacheError(res, 404, 'Not Found', 'The requested URL was not found on this server.', port);
    }
  });
}

/** The hardened twin's headers: HSTS, CSP, framing and sniffing off, no version. */
const HARDENED_HEADERS = {
  Server: 'Apache',
  'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
  'Content-Security-Policy': "default-src 'self'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** The same site hardened: HTTPS only (port 80 redirects), security headers, no listing, no status page. */
function hardenedWeb(): void {
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: string) => {
      res.writeHead(status, { ...HARDENED_HEADERS, 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, '<!DOCTYPE html><html><head><title>405</title></head><body><h1>Method Not Allowed</h1></body></html>\n');
    if (url.pathname === '/' || url.pathname === '/index.html') return send(200, INDEX_PAGE);
    if (url.pathname === '/about.html') return send(200, '<!DOCTYPE html><html><head><title>About</title></head><body><p>Internal tools. <a href="/">Home</a></p></body></html>\n');
    if (url.pathname.startsWith('/backups')) return send(403, '<!DOCTYPE html><html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1></body></html>\n');
    return send(404, '<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>\n');
  };
  const redirect = http.createServer((req, res) => {
    res.writeHead(301, { ...HARDENED_HEADERS, Location: `https://${address}${req.url ?? '/'}`, 'Content-Length': 0 });
    res.end();
  });
  const secure = https.createServer(
    {
      cert: fs.readFileSync(certFile!),
      key: fs.readFileSync(keyFile!),
      minVersion: 'TLSv1.2',
      ciphers: 'ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305',
      honorCipherOrder: true,
    },
    handler,
  );
  listenAll([
    [redirect, 80],
    [secure, 443],
  ]);
}

/** netkit in.telnetd: option negotiation first, then the issue and a login prompt; no login ever succeeds. */
function telnet(): net.Server {
  const IAC = 255;
  const DO = 253;
  return net.createServer((socket) => {
    socket.on('error', () => undefined);
    // DO TERMINAL-TYPE, DO TERMINAL-SPEED, DO X-DISPLAY-LOCATION, DO NEW-ENVIRON: what netkit sends first.
    socket.write(Buffer.from([IAC, DO, 24, IAC, DO, 32, IAC, DO, 35, IAC, DO, 39]));
    socket.write('\r\nDebian GNU/Linux 12\r\nweb login: ');
    let stage = 0;
    socket.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1').replace(/\xff[\xfb-\xfe]./gs, '');
      if (!/[\r\n]/.test(text)) return;
      stage++;
      socket.write(stage % 2 === 1 ? 'Password: ' : '\r\nLogin incorrect\r\nweb login: ');
    });
  });
}

function listenAll(servers: Array<[net.Server, number]>): void {
  let left = servers.length;
  for (const [server, port] of servers) {
    server.on('error', (error) => {
      console.error(`${kind} on ${address}:${port}: ${error.message}`);
      process.exit(1);
    });
    server.listen(port, address, () => --left === 0 && console.log('ready'));
  }
}

if (kind === 'apache') listenAll([[apache(80), 80]]);
else if (kind === 'hardened-web') hardenedWeb();
else if (kind === 'telnet') listenAll([[telnet(), 23]]);
else {
  console.error(`unknown fake ${kind}`);
  process.exit(2);
}
