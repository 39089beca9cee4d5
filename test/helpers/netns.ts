/**
 * A throwaway network namespace joined to the host by a veth pair on a private /24
 * (10.213.<random>.0/24): the host side is .1, the namespace's addresses are chosen by the test.
 * Needs root and `ip netns`; removed after the test.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { TestContext } from 'node:test';

const run = promisify(execFile);

export interface Netns {
  name: string;
  /** The /24's first three octets, e.g. `10.213.57`. */
  prefix: string;
  /** The host side's address (prefix.1). */
  hostAddress: string;
  /** `ip netns exec <name>`: put before a command to run it inside. */
  exec: string[];
}

/** Why a namespace cannot be made here (to skip with), or undefined. */
export async function netnsUnavailable(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'must run as root to create a network namespace';
  try {
    await run('ip', ['netns', 'list']);
    return undefined;
  } catch (error) {
    return `\`ip netns\` is unavailable (Debian package iproute2): ${(error as Error).message}`;
  }
}

/** Creates the namespace with `addresses` (last octets) on its side of the veth pair. */
export async function createNetns(t: TestContext, addresses: number[]): Promise<Netns> {
  const tag = `${process.pid % 10_000}${Math.floor(Math.random() * 1000)}`;
  const name = `rampart-e2e-${tag}`;
  const hostLink = `vrh${tag}`;
  const nsLink = `vrn${tag}`;
  const prefix = await unusedPrefix();
  t.after(async () => {
    // Deleting the namespace deletes its end of the pair, and with it the host's end.
    await run('ip', ['netns', 'del', name]).catch(() => undefined);
    await run('ip', ['link', 'del', hostLink]).catch(() => undefined);
  });
  const inside = (args: string[]) => run('ip', ['netns', 'exec', name, 'ip', ...args]);
  await run('ip', ['netns', 'add', name]);
  await run('ip', ['link', 'add', hostLink, 'type', 'veth', 'peer', 'name', nsLink]);
  await run('ip', ['link', 'set', nsLink, 'netns', name]);
  await run('ip', ['addr', 'add', `${prefix}.1/24`, 'dev', hostLink]);
  await run('ip', ['link', 'set', hostLink, 'up']);
  for (const last of addresses) await inside(['addr', 'add', `${prefix}.${last}/24`, 'dev', nsLink]);
  await inside(['link', 'set', nsLink, 'up']);
  await inside(['link', 'set', 'lo', 'up']);
  return { name, prefix, hostAddress: `${prefix}.1`, exec: ['ip', 'netns', 'exec', name] };
}

/** A 10.213.x.0/24 no interface of this machine uses yet. */
async function unusedPrefix(): Promise<string> {
  const { stdout } = await run('ip', ['-o', 'addr']);
  for (;;) {
    const prefix = `10.213.${Math.floor(Math.random() * 254) + 1}`;
    if (!stdout.includes(` ${prefix}.`)) return prefix;
  }
}
