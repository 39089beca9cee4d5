/**
 * ProjectDiscovery template signatures (src/engines/nuclei/templates/signature.ts) over REAL
 * signed templates of the shared set: what verifies, and each way a file can fail.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { decodeGobBytes, verifyTemplateSignature } from '../src/engines/nuclei/templates/signature.js';
import { SHARED_DIR } from './helpers/shared.js';

const DIR = path.join(SHARED_DIR, 'third_party', 'nuclei-templates', 'network', 'detection');
const skip = existsSync(DIR) ? false : `shared nuclei templates absent (${DIR}); set RAMPART_SHARED_DIR`;

test('real templates verify, also with CRLF line ends and trailing blank lines; any change, a moved or broken digest does not', { skip }, () => {
  const names = readdirSync(DIR).filter((n) => n.endsWith('.yaml')).sort().slice(0, 5);
  assert.equal(names.length, 5);
  for (const name of names) {
    const text = readFileSync(path.join(DIR, name), 'utf8');
    assert.equal(verifyTemplateSignature(Buffer.from(text)), 'verified', name);
    assert.equal(verifyTemplateSignature(text.replace(/\n/g, '\r\n')), 'verified', `${name} with CRLF`);
    assert.equal(verifyTemplateSignature(`${text}\n\n`), 'verified', `${name} with trailing blank lines`);
    assert.equal(verifyTemplateSignature(text.replace('info:', 'info: \n')), 'invalid', `${name} changed`);
    const digest = /\n(# digest: .*)\s*$/.exec(text)![1]!;
    assert.equal(verifyTemplateSignature(text.replace(digest, '').replace(/\s*$/, '\n')), 'unsigned', `${name} without its digest`);
    assert.equal(verifyTemplateSignature(`${text}\nextra: line\n`), 'invalid', `${name} with a line after the digest`);
    assert.equal(verifyTemplateSignature(text.replace(/:922c64590222798bb761d5b6d8e72950/, ':0123456789abcdef0123456789abcdef')), 'invalid', `${name} naming another key`);
    assert.equal(verifyTemplateSignature(text.replace(/:922c64590222798bb761d5b6d8e72950/, '')), 'verified', `${name} without the key fragment`);
    assert.equal(verifyTemplateSignature(text.replace(digest, digest.replace(/: ([0-9a-f]{8})/, ': 00$1'))), 'invalid', `${name} with a damaged gob`);
  }
});

test('the gob wrapper is read strictly: a []byte value, whole, nothing else', () => {
  const signature = Buffer.from('3006020101020101', 'hex');
  const gob = Buffer.concat([Buffer.from([3 + signature.length, 0x0a, 0x00, signature.length]), signature]);
  assert.deepEqual(decodeGobBytes(gob), signature);
  assert.equal(decodeGobBytes(Buffer.concat([gob, Buffer.from([0])])), null, 'trailing bytes');
  assert.equal(decodeGobBytes(Buffer.from([gob[0]!, 0x0c, ...gob.subarray(2)])), null, 'a string, not bytes');
  assert.equal(decodeGobBytes(gob.subarray(0, gob.length - 1)), null, 'truncated');
});
