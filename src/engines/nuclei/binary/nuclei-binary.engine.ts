/**
 * The Nuclei scan type run by the `nuclei` program (RAMPART_NUCLEI_MODE=binary): a driver, not a
 * template engine. A run:
 * 1. asks the program's version (`nuclei -version`, time-limited) and says what runs (identity);
 * 2. holds the deployment's template policy (binary-policy.ts): with a templates directory nuclei
 *    gets the list of the files the built-in selection keeps; nuclei's own templates only with
 *    RAMPART_NUCLEI_UNSAFE (nothing else keeps their `unsafe: true` templates out);
 * 3. refuses targets the guard does not allow as a whole (binary-targets.ts: nuclei connects by itself);
 * 4. starts the egress proxy (src/shared/egress-proxy.ts) and points nuclei's HTTP at it (`-proxy`),
 *    so every HTTP request and every redirect hop is checked by the guard;
 * 5. runs nuclei in its own process group, targets in a temporary `-l` file, results read line by
 *    line from stdout (binary-output.ts; reading pauses while the event queue is full), progress
 *    from the `-stats -sj` lines on stderr;
 * 6. on the job's abort (at any step), ends the whole process group (SIGTERM, then SIGKILL after a grace period)
 *    and stops without an error; a non-zero exit is an EngineError quoting stderr's last lines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { startEgressProxy } from '../../../shared/egress-proxy.js';
import { EventChannel } from '../../../shared/event-channel.js';
import { findFreeLoopbackPort } from '../../../shared/free-port.js';
import type { Engine, EngineEvent, EngineJob } from '../../engine.js';
import { EngineError } from '../../engine.js';
import { binaryOptionsSchema, buildNucleiArgs, runnableTags, type BinaryOptionCaps, type BinaryOptions } from './binary-options.js';
import { findingOfLine, LastLines, progressOfLine } from './binary-output.js';
import { listPermittedTemplates } from './binary-policy.js';
import { assertTargetsAllowed, targetsFileContent } from './binary-targets.js';
import { readNucleiVersion } from './find-binary.js';

/** How long nuclei may take to exit after SIGTERM before the group is killed. */
const KILL_GRACE_MS = 5000;
/** stderr lines quoted when nuclei fails. */
const QUOTED_LINES = 8;
/** Events queued for a slow consumer before nuclei's output waits. */
const QUEUE_CAPACITY = 256;
/** Pushes waiting for room in the queue before reading nuclei's output pauses. */
const PAUSE_AFTER = 64;
/** nuclei's own `-timeout 10`, when the deployment sets none. */
const DEFAULT_TIMEOUT_MS = 10_000;

/** What the registry gives the driver. */
export interface NucleiBinarySettings {
  /** The program's absolute path (find-binary.ts). */
  bin: string;
  /** The templates directory (`-t`); when it does not exist, nuclei's own installed templates run. */
  templatesDir: string | undefined;
  caps: BinaryOptionCaps;
  /** Run templates with `unsafe: true` (RAMPART_NUCLEI_UNSAFE; default no). */
  unsafe?: boolean;
  /** Bound on one exchange (RAMPART_NUCLEI_TIMEOUT_MS; default nuclei's 10 s). */
  timeoutMs?: number;
}

/** The Engine running Nuclei scans with the nuclei binary. */
export function createNucleiBinaryEngine(settings: NucleiBinarySettings): Engine {
  return {
    name: 'nuclei',
    version: 'binary',
    optionsSchema: binaryOptionsSchema(settings.caps),
    run: (job) => runNucleiBinary(settings, job),
  };
}

async function* runNucleiBinary(settings: NucleiBinarySettings, job: EngineJob): AsyncGenerator<EngineEvent> {
  if (job.signal.aborted) return;
  let version: string | undefined;
  try {
    version = await readNucleiVersion(settings.bin, job.signal);
  } catch (error) {
    throw new EngineError('config', `The nuclei program does not run: ${(error as Error).message}`, { cause: error });
  }
  if (version === undefined || job.signal.aborted) return;
  const options = (job.options ?? {}) as BinaryOptions;
  const templatesDir = settings.templatesDir && existsSync(settings.templatesDir) ? settings.templatesDir : undefined;
  if (!templatesDir && !settings.unsafe) {
    throw new EngineError(
      'config',
      "The nuclei program would run its own installed templates, and nothing would keep their `unsafe: true` templates out: run `rampart templates sync` (or set RAMPART_NUCLEI_TEMPLATES) so Rampart can choose the templates, or set RAMPART_NUCLEI_UNSAFE=true to accept them.",
    );
  }
  const permitted = templatesDir ? await listPermittedTemplates(templatesDir, options, settings.unsafe ?? false) : undefined;
  if (job.signal.aborted) return;
  const counts = permitted ? ` (${permitted.paths.length} of ${permitted.total} permitted)` : '';
  yield { type: 'engine', name: 'nuclei', version, detail: `binary ${settings.bin}, templates ${templatesDir ?? "nuclei's own"}${counts}` };
  // nuclei given no template (an empty list, or tags that never run) would run all of them.
  if (permitted?.paths.length === 0 || (!permitted && options.tags && runnableTags(options).length === 0)) {
    yield { type: 'log', level: 'info', message: 'No template of the selection may run on this deployment: nuclei was not started.' };
    return;
  }
  await assertTargetsAllowed(job);
  if (job.signal.aborted) return;

  const workDir = await mkdtemp(path.join(os.tmpdir(), 'rampart-nuclei-'));
  try {
    const proxy = await startEgressProxy({ egress: job.egress, connectTimeoutMs: job.limits.connectTimeoutMs });
    try {
      const targetsFile = path.join(workDir, 'targets.txt');
      await writeFile(targetsFile, targetsFileContent(job.targets), { mode: 0o600 });
      let templateList: string | undefined;
      if (permitted) {
        templateList = path.join(workDir, 'templates.txt');
        await writeFile(templateList, `${permitted.paths.join('\n')}\n`, { mode: 0o600 });
      }
      // nuclei's metrics server (-mp): concurrent runs must not share a port.
      const metricsPort = await findFreeLoopbackPort();
      const args = buildNucleiArgs(job, { targetsFile, templateList, metricsPort, proxyUrl: proxy.url, timeoutMs: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS });
      yield* runProcess(settings.bin, args, workDir, job.signal);
    } finally {
      await proxy.close();
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Runs nuclei and yields what it reports, until it exits or the signal aborts. */
async function* runProcess(bin: string, args: string[], cwd: string, signal: AbortSignal): AsyncGenerator<EngineEvent> {
  // An abort before the listener below exists would never reach it.
  if (signal.aborted) return;
  const queue = new EventChannel<EngineEvent>(QUEUE_CAPACITY);
  // Its own process group, so cancelling ends nuclei and anything it started.
  const child = spawn(bin, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const readers = [createInterface({ input: child.stdout! }), createInterface({ input: child.stderr! })];
  // Every push in flight: the queue is closed only after them, so a full queue drops nothing at the end.
  let pushed: Promise<unknown> = Promise.resolve();
  // Pushes still waiting for room: past PAUSE_AFTER nuclei's output is not read (its pipes fill and
  // it waits) until the consumer has taken them all.
  let waiting = 0;
  const push = (event: EngineEvent): void => {
    waiting += 1;
    if (waiting === PAUSE_AFTER) for (const reader of readers) reader.pause();
    const done = queue.push(event).then(() => {
      waiting -= 1;
      if (waiting === 0) for (const reader of readers) reader.resume();
    });
    pushed = Promise.all([pushed, done]);
  };
  const end = (error?: unknown): void => void pushed.then(() => queue.close(error));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const stderrTail = new LastLines(QUOTED_LINES);
  const hosts = new Set<string>();
  let skipped = 0;
  let lastPercent = -1;

  readers[0]!.on('line', (line) => {
    const finding = findingOfLine(line);
    if (!finding) {
      if (line.trim()) skipped++;
      return;
    }
    if (!hosts.has(finding.hostname)) {
      hosts.add(finding.hostname);
      push({ type: 'host', hostname: finding.hostname, address: finding.hostIp, state: 'up' });
    }
    push({ type: 'finding', finding });
  });
  readers[1]!.on('line', (line) => {
    const progress = progressOfLine(line);
    if (!progress) return stderrTail.push(line);
    if (progress.percent === lastPercent) return;
    lastPercent = progress.percent;
    push({ type: 'progress', percent: progress.percent, ...(progress.detail ? { detail: progress.detail } : {}) });
  });
  child.once('error', (error) => end(new EngineError('config', `Could not start ${bin}: ${error.message}`, { cause: error })));
  child.once('close', (code, exitSignal) => {
    if (signal.aborted) return queue.cancel();
    if (skipped > 0) push({ type: 'log', level: 'info', message: `${skipped} line(s) of nuclei's output were not results and were skipped.` });
    if (code === 0) return end();
    const tail = stderrTail.toString() || '(nothing on stderr)';
    if (code !== null) return end(new EngineError('config', `nuclei exited with code ${code}:\n${tail}`));
    end(new EngineError('internal', `nuclei was ended by ${exitSignal ?? 'a signal'}:\n${tail}`));
  });
  const onAbort = (): void => {
    killGroup(child, 'SIGTERM');
    queue.cancel();
  };
  signal.addEventListener('abort', onAbort, { once: true });

  try {
    for await (const event of queue) {
      if (signal.aborted) break;
      yield event;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    queue.cancel();
    await stopProcess(child, closed);
  }
}

/** Ends a still-running nuclei: SIGTERM to its group, SIGKILL after the grace period; resolves once it closed. */
async function stopProcess(child: ChildProcess, closed: Promise<void>): Promise<void> {
  if (child.pid === undefined) return;
  if (child.exitCode === null && child.signalCode === null) killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS);
  try {
    await closed;
  } finally {
    clearTimeout(timer);
  }
  // Whatever of the group outlived nuclei itself.
  killGroup(child, 'SIGKILL');
}

function killGroup(child: ChildProcess, sig: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, sig);
  } catch {
    // The group is gone already.
  }
}
