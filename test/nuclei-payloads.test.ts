/**
 * Payload sets of nuclei blocks: the three attack types in nuclei's order, the combination cap,
 * wordlists read below the templates directory (a real helpers/ wordlist from ../shared) and
 * refused outside it (links included), refused when not a regular file or too large, read again
 * when changed.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { MAX_PAYLOAD_COMBINATIONS, PayloadError, combinePayloads, readPayloadSets } from '../src/engines/nuclei/execute/payloads.js';
import { SHARED_DIR } from './helpers/shared.js';

const CORPUS = path.join(SHARED_DIR, 'third_party', 'nuclei-templates');
const skip = existsSync(CORPUS) ? false : `shared nuclei templates not found at ${CORPUS} (set RAMPART_SHARED_DIR)`;

describe('combinePayloads', () => {
  it('batteringram yields each value of each set alone, set after set', () => {
    assert.deepEqual([...combinePayloads({ a: ['1', '2'], b: ['x'] }, 'batteringram')], [{ a: '1' }, { a: '2' }, { b: 'x' }]);
    assert.deepEqual([...combinePayloads({ a: ['1'] }, undefined)], [{ a: '1' }]);
  });

  it('pitchfork pairs values by position, as long as the shortest set', () => {
    assert.deepEqual([...combinePayloads({ u: ['admin', 'root', 'extra'], p: ['a1', 'r1'] }, 'pitchfork')], [
      { u: 'admin', p: 'a1' },
      { u: 'root', p: 'r1' },
    ]);
  });

  it('clusterbomb yields every combination, the first set varying fastest', () => {
    assert.deepEqual([...combinePayloads({ a: ['1', '2'], b: ['x', 'y'], c: ['z'] }, 'clusterbomb')], [
      { a: '1', b: 'x', c: 'z' },
      { a: '2', b: 'x', c: 'z' },
      { a: '1', b: 'y', c: 'z' },
      { a: '2', b: 'y', c: 'z' },
    ]);
    assert.deepEqual([...combinePayloads({ a: ['1'], b: [] }, 'clusterbomb')], []);
    assert.deepEqual([...combinePayloads({}, 'clusterbomb')], []);
  });

  it('stops at the combination cap', () => {
    const many = Array.from({ length: 100 }, (_, i) => String(i));
    assert.equal([...combinePayloads({ a: many, b: many }, 'clusterbomb')].length, MAX_PAYLOAD_COMBINATIONS);
  });
});

describe('readPayloadSets', () => {
  it('reads a helpers/ wordlist of the corpus relative to the templates directory', { skip }, async () => {
    const sets = await readPayloadSets(
      { users: { kind: 'file', path: 'helpers/wordlists/wp-users.txt' }, inline: { kind: 'values', values: ['v'] } },
      CORPUS,
    );
    assert.ok((sets.users?.length ?? 0) > 0);
    assert.ok(sets.users!.every((line) => line !== '' && !line.endsWith('\r')));
    assert.deepEqual(sets.inline, ['v']);
  });

  it('splits a multi-line string, drops empty lines of a file, and refuses paths outside the directory', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rampart-payloads-'));
    try {
      await writeFile(path.join(dir, 'list.txt'), 'one\r\n\r\ntwo\n');
      const sets = await readPayloadSets({ f: { kind: 'file', path: 'list.txt' }, m: { kind: 'file', path: 'a\nb' } }, dir);
      assert.deepEqual(sets, { f: ['one', 'two'], m: ['a', 'b'] });
      await assert.rejects(readPayloadSets({ f: { kind: 'file', path: '../etc/passwd' } }, dir), PayloadError);
      await assert.rejects(readPayloadSets({ f: { kind: 'file', path: '/etc/passwd' } }, dir), PayloadError);
      await assert.rejects(readPayloadSets({ f: { kind: 'file', path: 'missing.txt' } }, dir), /cannot be read/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('follows links only within the directory, refuses what is not a regular file or is too large before reading it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rampart-payloads-'));
    const elsewhere = await mkdtemp(path.join(tmpdir(), 'rampart-payloads-out-'));
    try {
      await writeFile(path.join(elsewhere, 'secret.txt'), 'secret\n');
      await writeFile(path.join(dir, 'list.txt'), 'one\n');
      await symlink(path.join(elsewhere, 'secret.txt'), path.join(dir, 'leak.txt'));
      await symlink(path.join(dir, 'list.txt'), path.join(dir, 'alias.txt'));
      await mkdir(path.join(dir, 'folder'));
      // Sparse: 3 GiB that take no disk; reading it first would fail on its size, not on the limit.
      const huge = await open(path.join(dir, 'huge.txt'), 'w');
      await huge.truncate(3 * 1024 ** 3);
      await huge.close();
      await assert.rejects(readPayloadSets({ f: { kind: 'file', path: 'leak.txt' } }, dir), /outside the templates directory/);
      assert.deepEqual(await readPayloadSets({ f: { kind: 'file', path: 'alias.txt' } }, dir), { f: ['one'] });
      await assert.rejects(readPayloadSets({ f: { kind: 'file', path: 'folder' } }, dir), /is not a regular file/);
      await assert.rejects(readPayloadSets({ f: { kind: 'file', path: 'huge.txt' } }, dir), /is larger than 8388608 bytes/);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('reads a wordlist again once a templates sync changed it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rampart-payloads-'));
    try {
      await writeFile(path.join(dir, 'list.txt'), 'old\n');
      assert.deepEqual(await readPayloadSets({ f: { kind: 'file', path: 'list.txt' } }, dir), { f: ['old'] });
      await writeFile(path.join(dir, 'list.txt'), 'new\nnewer\n');
      assert.deepEqual(await readPayloadSets({ f: { kind: 'file', path: 'list.txt' } }, dir), { f: ['new', 'newer'] });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
