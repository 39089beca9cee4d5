/** Broker detection against the real RabbitMQ, Mosquitto and NATS this machine runs on loopback. */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { escapeBanner, readBanner } from '../src/engines/rampart/banner.js';
import { detectService } from '../src/engines/rampart/services/detect.js';
import { identifyNats } from '../src/engines/rampart/services/brokers.js';
import { LOOPBACK_EGRESS } from './helpers/egress.js';

const limits = { connectTimeoutMs: 1000, readTimeoutMs: 2000, maxConcurrency: 4, ratePerSecond: 0 };

/** What the engine's service stage would do: read the banner, then detect. Null when the port is closed. */
async function detect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  const connected = await new Promise<boolean>((resolve) => {
    socket.once('connect', () => resolve(true));
    socket.once('error', () => resolve(false));
  });
  if (!connected) return null;
  const banner = await readBanner(socket, limits.readTimeoutMs, new AbortController().signal);
  socket.destroy();
  const shown = banner && banner.length > 0 ? escapeBanner(banner) : null;
  return detectService({ hostname: '127.0.0.1', address: '127.0.0.1', port, limits, signal: new AbortController().signal, egress: LOOPBACK_EGRESS }, shown);
}

test('RabbitMQ on 5672: AMQP with product and version from Connection.Start', async (t) => {
  const info = await detect(5672);
  if (!info) return t.skip('no AMQP broker on 127.0.0.1:5672 (Debian package rabbitmq-server)');
  assert.equal(info.name, 'amqp');
  assert.equal(info.product, 'RabbitMQ');
  assert.match(info.version ?? '', /^\d+\.\d+\.\d+/);
});

test('Mosquitto on 1883: MQTT, and whether anonymous clients are let in', async (t) => {
  const info = await detect(1883);
  if (!info) return t.skip('no MQTT broker on 127.0.0.1:1883 (Debian package mosquitto)');
  assert.equal(info.name, 'mqtt');
  assert.match(info.details.auth ?? '', /^(none|required)$/);
});

test('NATS on 4222: from its INFO greeting', async (t) => {
  const info = await detect(4222);
  if (!info) return t.skip('no NATS server on 127.0.0.1:4222 (Debian package nats-server)');
  assert.equal(info.name, 'nats');
  assert.equal(info.product, 'NATS Server');
  assert.match(info.version ?? '', /^\d+\.\d+\.\d+/);
});

test('a NATS greeting cut off by the banner limit is still read', () => {
  // The start of nats-server 2.9's INFO line, truncated inside the JSON.
  const cut = 'INFO {"server_id":"ND2RMX7PRK57","server_name":"ND2RMX7PRK57","version":"2.9.10","proto":1,"go":"go1.19.8","host":"0.0.0.0","port":4222,"headers":true,"auth_required":true,"max_pay';
  assert.deepEqual(identifyNats(cut), { name: 'nats', product: 'NATS Server', version: '2.9.10', details: { auth: 'required' } });
  assert.equal(identifyNats('INFO something else'), null);
});
