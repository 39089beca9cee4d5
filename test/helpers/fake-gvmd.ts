/**
 * A fake gvmd speaking real GMP (replies from the official examples: fake-gvmd-replies.ts), on a
 * Unix socket or over TLS. It holds the client to the protocol's rules and records every breach
 * in `violations` (a test asserts it stays empty):
 * - only get_version before a successful authenticate (else gvmd's own 400 answer);
 * - one command in flight: a byte of a new command before the whole reply was written is a
 *   breach, and the connection is closed as gvmd would leave it unusable;
 * - a target still used by a task cannot be deleted (engines.md step 11).
 * Replies go out in random chunk sizes (single bytes included) with a turn of the event loop
 * between chunks, so the client sees tags, attributes and text split anywhere. Commands, created
 * and deleted resources are recorded across connections (the cleanup may use a new one).
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import type { TestContext } from 'node:test';
import tls from 'node:tls';
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import { tempDir } from './app.js';
import { FEED, replies } from './fake-gvmd-replies.js';

export { GMP_SKIP } from './fake-gvmd-replies.js';

export const GVMD_USER = 'rampart';
export const GVMD_PASSWORD = 'pa<ss>&"word\'';

export interface FakeGvmdOptions {
  /** TLS with this key and certificate; else a Unix socket. */
  tls?: { key: string; cert: string };
  version?: string;
  /** The task's states at each poll, in order; the last repeats (default: Requested, Running 0/35/80, Done). */
  states?: { status: string; progress: number }[];
  /** Answers the first `command` with this status instead. */
  failWith?: { command: string; code: number; text: string };
  /** Closes the connection when the `nth` (default 1st) `command` arrives. */
  dropOn?: { command: string; nth?: number };
  /** Never answers this command (a hung gvmd). */
  silentOn?: string;
  /** Every reply chunk this many bytes (default: random sizes, single bytes included). */
  chunkBytes?: number;
  /** The report file of scan-samples/openvas (default report_detail_v2.xml, gvmd 22.6). */
  report?: string;
  /** The address the report's host (10.99.99.99 in report_detail_v2.xml) is replaced with, as if gvmd had scanned it. */
  reportAddress?: string;
}

interface Node {
  name: string;
  attrs: Record<string, string>;
  text: string;
  children: Node[];
}

interface Task {
  id: string;
  targetId: string;
  reportId?: string;
  polls: number;
  stop?: 'requested' | 'stopped';
}

export interface FakeGvmd {
  /** The Unix socket, or host and port of the TLS listener. */
  socket?: string;
  host?: string;
  port?: number;
  commands: { name: string; attrs: Record<string, string>; connection: number }[];
  violations: string[];
  created: { targets: { id: string; hosts: string; name: string }[]; tasks: Task[] };
  deleted: { tasks: string[]; targets: string[] };
  connections: number;
}

const DEFAULT_STATES = [
  { status: 'Requested', progress: -1 },
  { status: 'Running', progress: 0 },
  { status: 'Running', progress: 35 },
  { status: 'Running', progress: 80 },
  { status: 'Done', progress: -1 },
];

const textOf = (node: Node | undefined, name: string) => node?.children.find((c) => c.name === name)?.text.trim() ?? '';

/** Starts a fake gvmd; it stops with the test. */
export async function startFakeGvmd(t: TestContext, options: FakeGvmdOptions = {}): Promise<FakeGvmd> {
  const state: FakeGvmd = { commands: [], violations: [], created: { targets: [], tasks: [] }, deleted: { tasks: [], targets: [] }, connections: 0 };
  const seen = new Map<string, number>();
  let failed = false;
  const states = options.states ?? DEFAULT_STATES;

  function answer(command: Node, authed: { yes: boolean }): string | 'drop' {
    const count = (seen.get(command.name) ?? 0) + 1;
    seen.set(command.name, count);
    if (options.dropOn?.command === command.name && (options.dropOn.nth ?? 1) === count) return 'drop';
    if (!authed.yes && command.name !== 'get_version' && command.name !== 'authenticate') {
      state.violations.push(`${command.name} before authenticate`);
      return replies.onlyGetVersion();
    }
    if (options.failWith?.command === command.name && !failed) {
      failed = true;
      return replies.status(command.name, options.failWith.code, options.failWith.text);
    }
    const filterName = /name="([^"]*)"/.exec(command.attrs.filter ?? '')?.[1];
    switch (command.name) {
      case 'get_version':
        return replies.version(options.version ?? '22.7');
      case 'authenticate': {
        const credentials = command.children.find((c) => c.name === 'credentials');
        authed.yes = textOf(credentials, 'username') === GVMD_USER && textOf(credentials, 'password') === GVMD_PASSWORD;
        return authed.yes ? replies.authenticated() : replies.authenticationFailed();
      }
      case 'get_configs':
        return replies.configs(filterName === 'Full and fast');
      case 'get_port_lists':
        return replies.portLists(filterName === 'All IANA assigned TCP');
      case 'get_scanners':
        return replies.scanners();
      case 'create_target': {
        const target = { id: randomUUID(), hosts: textOf(command, 'hosts'), name: textOf(command, 'name') };
        const portList = command.children.find((c) => c.name === 'port_list')?.attrs.id;
        if (portList !== FEED.allIanaTcp) state.violations.push(`create_target with port list ${portList}`);
        state.created.targets.push(target);
        return replies.targetCreated(target.id);
      }
      case 'create_task': {
        const ref = (name: string) => command.children.find((c) => c.name === name)?.attrs.id ?? '';
        if (ref('config') !== FEED.fullAndFast || ref('scanner') !== FEED.openvasScanner) state.violations.push(`create_task with config ${ref('config')}, scanner ${ref('scanner')}`);
        const task: Task = { id: randomUUID(), targetId: ref('target'), polls: 0 };
        state.created.tasks.push(task);
        return replies.taskCreated(task.id);
      }
      case 'start_task': {
        const task = state.created.tasks.find((x) => x.id === command.attrs.task_id);
        if (!task) return replies.status('start_task', 404, 'Failed to find task');
        task.reportId = randomUUID();
        return replies.taskStarted(task.reportId);
      }
      case 'get_tasks': {
        const task = state.created.tasks.find((x) => x.id === command.attrs.task_id);
        if (!task) return replies.status('get_tasks', 404, 'Failed to find task');
        const current = task.stop === 'stopped' ? { status: 'Stopped', progress: -1 } : task.stop === 'requested' ? { status: 'Stop Requested', progress: 50 } : states[Math.min(task.polls, states.length - 1)]!;
        task.polls++;
        if (task.stop === 'requested') task.stop = 'stopped';
        return replies.tasks({ id: task.id, status: current.status, progress: current.progress, reportId: task.reportId ?? '' });
      }
      case 'stop_task': {
        const task = state.created.tasks.find((x) => x.id === command.attrs.task_id);
        if (task) task.stop = 'requested';
        return replies.taskStopped();
      }
      case 'get_reports':
        return replies.report(options.report ?? 'report_detail_v2.xml', options.reportAddress);
      case 'delete_task':
        if (command.attrs.ultimate !== '1') state.violations.push('delete_task without ultimate="1"');
        state.deleted.tasks.push(command.attrs.task_id ?? '');
        return replies.taskDeleted();
      case 'delete_target': {
        const inUse = state.created.tasks.some((x) => x.targetId === command.attrs.target_id && !state.deleted.tasks.includes(x.id));
        if (inUse) {
          state.violations.push('delete_target while its task exists');
          return replies.status('delete_target', 400, 'Target is in use');
        }
        if (command.attrs.ultimate !== '1') state.violations.push('delete_target without ultimate="1"');
        state.deleted.targets.push(command.attrs.target_id ?? '');
        return replies.targetDeleted();
      }
      default:
        state.violations.push(`unknown command ${command.name}`);
        return replies.status('gmp', 400, 'Bogus command name');
    }
  }

  function serve(socket: net.Socket): void {
    const connection = ++state.connections;
    const authed = { yes: false };
    let busy = false;
    let parser = newParser();
    const decoder = new StringDecoder('utf8');
    socket.on('error', () => undefined);

    function newParser(): SaxesParser {
      const p = new SaxesParser({ xmlns: false });
      const stack: Node[] = [];
      p.on('opentag', (tag) => {
        const node: Node = { name: tag.name, attrs: Object.fromEntries(Object.entries(tag.attributes).map(([k, v]) => [k, String(v)])), text: '', children: [] };
        stack[stack.length - 1]?.children.push(node);
        stack.push(node);
      });
      p.on('text', (text) => {
        const top = stack[stack.length - 1];
        if (top) top.text += text;
      });
      p.on('closetag', () => {
        const node = stack.pop()!;
        if (stack.length === 0) void dispatch(node);
      });
      p.on('error', (error) => {
        state.violations.push(`malformed command XML: ${error.message}`);
        socket.destroy();
      });
      return p;
    }

    async function dispatch(command: Node): Promise<void> {
      busy = true;
      parser = newParser();
      state.commands.push({ name: command.name, attrs: command.attrs, connection });
      if (command.name === options.silentOn) return;
      const reply = answer(command, authed);
      if (reply === 'drop') return void socket.destroy();
      const bytes = Buffer.from(reply, 'utf8');
      for (let at = 0; at < bytes.length && !socket.destroyed; ) {
        const size = options.chunkBytes ?? (Math.random() < 0.3 ? 1 + Math.floor(Math.random() * 3) : 1 + Math.floor(Math.random() * 512));
        socket.write(bytes.subarray(at, at + size));
        at += size;
        if (at < bytes.length) await new Promise((resolve) => setImmediate(resolve));
      }
      busy = false;
    }

    socket.on('data', (chunk: Buffer) => {
      if (busy) {
        state.violations.push(`a command arrived before the reply to ${state.commands[state.commands.length - 1]?.name} was complete`);
        return void socket.destroy();
      }
      parser.write(decoder.write(chunk));
    });
  }

  const server = options.tls ? tls.createServer({ key: options.tls.key, cert: options.tls.cert }, serve) : net.createServer(serve);
  const sockets = new Set<net.Socket>();
  server.on(options.tls ? 'secureConnection' : 'connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // A refused handshake (the client's wrong CA) is the client's business, not a server crash.
  server.on('tlsClientError', () => undefined);
  if (options.tls) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    state.host = '127.0.0.1';
    state.port = (server.address() as net.AddressInfo).port;
  } else {
    state.socket = path.join(await tempDir(t), 'gvmd.sock');
    await new Promise<void>((resolve) => server.listen(state.socket, resolve));
  }
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  return state;
}
