/**
 * The service stage: for each open port the port scan finds, while the scan goes on, read the
 * banner, identify the service, run the checks that apply, and match the product version to known
 * vulnerabilities. At most `concurrency` ports are worked on at once; `add` waits for room, which
 * slows the port scan rather than queueing without bound.
 */
import type { EngineEvent, EngineJob, EngineLimits, Finding, VulnerabilityLookup } from '../engine.js';
import { escapeBanner, readBanner } from './banner.js';
import type { Check, CheckFinding, Endpoint, ProtocolFacts, ServiceInfo } from './checks/check.js';
import { describeService, knownVulnerabilityFinding, packagedBuildOf, serviceFinding, type ProbedHost } from './findings.js';
import { connectTcp } from './port-scan.js';
import type { SocketBudget } from './budget.js';
import type { TokenBucket } from './rate-limit.js';
import { scanUdp } from './udp/udp-scan.js';

export type DetectService = (endpoint: Endpoint, banner: string | null) => Promise<ServiceInfo>;

export interface ServiceStageOptions {
  limits: EngineLimits;
  signal: AbortSignal;
  /** The job's egress: every connection of the stage goes through it. */
  egress: EngineJob['egress'];
  emit(event: EngineEvent): Promise<void>;
  detect: DetectService;
  checks: readonly Check[];
  vulnerabilities: VulnerabilityLookup | undefined;
  concurrency: number;
  /** Shared with the port scan; each step that opens connections holds one slot. */
  budget: SocketBudget;
  /** Probe each live host's default UDP services too. */
  udp: boolean;
  bucket?: TokenBucket | undefined;
}

export class ServiceStage {
  #inFlight = 0;
  #waiters: (() => void)[] = [];
  #running = new Set<Promise<void>>();
  #added = 0;
  #done = 0;
  #failure: unknown;

  constructor(private readonly options: ServiceStageOptions) {}

  /** Ports handed in and ports finished, for progress. */
  get counts(): { added: number; done: number } {
    return { added: this.#added, done: this.#done };
  }

  /** Starts the UDP probes of a host that answered, once there is room. */
  async addUdp(host: ProbedHost): Promise<void> {
    if (this.options.udp) await this.#start(() => this.#udp(host));
  }

  /** Starts work on one open port once there is room. */
  async add(host: ProbedHost, port: number): Promise<void> {
    await this.#start(() => this.#work(host, port));
  }

  async #start(work: () => Promise<void>): Promise<void> {
    while (this.#inFlight >= this.options.concurrency) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    if (this.options.signal.aborted) return;
    this.#inFlight += 1;
    this.#added += 1;
    const task = work()
      .catch((error: unknown) => {
        this.#failure ??= error;
      })
      .finally(() => {
        this.#inFlight -= 1;
        this.#done += 1;
        this.#running.delete(task);
        this.#waiters.shift()?.();
      });
    this.#running.add(task);
  }

  /** Waits for every port handed in; rethrows the first unexpected failure. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
    if (this.#failure !== undefined) throw this.#failure;
  }

  async #udp(host: ProbedHost): Promise<void> {
    const { limits, signal, emit, budget, egress } = this.options;
    const result = await budget.with(signal, () => scanUdp(host.address, host.hostname, { limits, signal, egress, ...(this.options.bucket ? { bucket: this.options.bucket } : {}) }));
    if (!result || signal.aborted) return;
    for (const { port, service } of result.services) {
      await emit({ type: 'finding', finding: serviceFinding(host, port, service, limits.readTimeoutMs, 'udp') });
    }
    for (const { port, ...finding } of result.findings) {
      if (signal.aborted) return;
      await emit({ type: 'finding', finding: { ...finding, hostname: host.hostname, hostIp: host.address, port, protocol: 'udp', service: result.services.find((s) => s.port === port)?.service.name ?? null } });
    }
  }

  async #work(host: ProbedHost, port: number): Promise<void> {
    const { limits, signal, emit, budget, egress } = this.options;
    const endpoint: Endpoint = { hostname: host.hostname, address: host.address, port, limits, signal, egress, bucket: this.options.bucket };
    const banner = await budget.with(signal, () => grabBanner(endpoint));
    if (signal.aborted) return;
    const service = await budget.with(signal, () => this.options.detect(endpoint, banner ?? null));
    if (signal.aborted || !service) return;
    await emit({ type: 'finding', finding: serviceFinding(host, port, service, limits.readTimeoutMs) });

    const located = (f: CheckFinding): Finding => ({ ...f, hostname: host.hostname, hostIp: host.address, port, protocol: 'tcp', service: service.name });
    // Protocol facts beat versions: CVEs a check proved (its finding names them) or disproved.
    const proven = new Set<string>();
    const notAffected = new Map<string, string>();
    const facts: ProtocolFacts = { notAffected: (cve, reason) => void notAffected.set(cve, reason) };
    for (const check of this.options.checks) {
      if (signal.aborted) return;
      if (!check.appliesTo(service)) continue;
      let findings: CheckFinding[];
      try {
        findings = (await budget.with(signal, () => check.run(endpoint, service, facts))) ?? [];
      } catch (error) {
        // One check failing (a service closing on us mid-check) must not stop the others.
        await emit({ type: 'log', level: 'warn', message: `Check ${check.id} on ${host.address}:${port} failed: ${error instanceof Error ? error.message : String(error)}` });
        continue;
      }
      for (const finding of findings) {
        for (const cve of finding.cve) proven.add(cve);
        if (!signal.aborted) await emit({ type: 'finding', finding: located(finding) });
      }
    }

    const { vulnerabilities } = this.options;
    if (service.cpe && service.version && vulnerabilities) {
      const build = packagedBuildOf(service);
      const context = { server: true, ...(build?.osCpe ? { platforms: [build.osCpe] } : {}) };
      for (const vulnerability of await vulnerabilities.forCpe(service.cpe, context)) {
        if (signal.aborted) return;
        if (proven.has(vulnerability.cve)) continue;
        const reason = notAffected.get(vulnerability.cve);
        if (reason) {
          await emit({ type: 'log', level: 'info', message: `${vulnerability.cve} matches ${describeService(service)} on ${host.address}:${port} by version, but is not reported: ${reason}.` });
          continue;
        }
        await emit({ type: 'finding', finding: knownVulnerabilityFinding(host, port, service, vulnerability, build) });
      }
    }
  }
}

/** Connects again and reads what the service says first (escaped), or null for silence. */
async function grabBanner(endpoint: Endpoint): Promise<string | null> {
  const outcome = await connectTcp(endpoint.egress, endpoint.address, endpoint.port, endpoint.limits.connectTimeoutMs, endpoint.signal);
  if (outcome.state !== 'connected') return null;
  try {
    const bytes = await readBanner(outcome.socket, endpoint.limits.readTimeoutMs, endpoint.signal);
    return bytes && bytes.length > 0 ? escapeBanner(bytes) : null;
  } finally {
    outcome.socket.destroy();
  }
}
