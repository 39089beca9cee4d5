/**
 * The targets of a run of the nuclei binary, checked before it starts. nuclei opens its own
 * sockets: only its HTTP traffic can be held to the egress guard (through the egress proxy); its
 * tcp, ssl and dns templates connect directly. So every target must be allowed as a whole before
 * the process starts: each literal address, each address a name resolves to now, and each whole
 * CIDR range. A refused target fails the run (`network-permanent`) naming it. The job's abort ends
 * the check at once (a name still resolving is left to its own timeout).
 */
import { resolveAndCheck } from '../../../shared/address-guard.js';
import { splitHostPort } from '../../../shared/host-port.js';
import type { EngineJob, JobTarget } from '../../engine.js';
import { EngineError } from '../../engine.js';
import { untilAborted } from '../../../shared/until-aborted.js';

/** The host of a target as nuclei reads it (URL or `host:port` host, name, address or range). */
function hostOf(target: JobTarget): string {
  if (target.kind === 'service') {
    const service = splitHostPort(target.value);
    if (!service) throw new EngineError('config', `The target "${target.value}" is not a valid host:port.`);
    return service.host;
  }
  if (target.kind !== 'url') return target.value;
  try {
    return new URL(target.value).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    throw new EngineError('config', `The target "${target.value}" is not a valid URL.`);
  }
}

/**
 * Throws unless the guard allows every address every target may lead nuclei to. Returns early
 * (without a verdict) once the job aborts: the caller checks the signal.
 */
export async function assertTargetsAllowed(job: EngineJob): Promise<void> {
  for (const target of job.targets) {
    if (job.signal.aborted) return;
    if (target.kind === 'cidr') {
      const guard = job.guard as EngineJob['guard'] & { checkRange?: (cidr: string) => { allowed: boolean; class: string } };
      const verdict = guard.checkRange?.(target.value) ?? { allowed: false, class: 'unchecked' };
      if (!verdict.allowed) {
        throw new EngineError('network-permanent', `The range ${target.value} includes ${verdict.class} addresses this deployment may not contact (RAMPART_ALLOW_TARGETS does not cover them); the nuclei binary was not started.`);
      }
      continue;
    }
    const host = hostOf(target);
    const result = await untilAborted(resolveAndCheck(host, job.egress), job.signal);
    if (!result) return;
    if (!result.ok) {
      const kind = result.reason === 'unresolvable' ? 'network-temporary' : 'network-permanent';
      throw new EngineError(kind, `${result.message} The nuclei binary was not started (it connects by itself, so every address of every target must be allowed).`);
    }
  }
}

/** The `-l` file's content: one target a line, as nuclei takes them (`host:port` and `[ipv6]:port` included). */
export function targetsFileContent(targets: readonly JobTarget[]): string {
  return `${targets.map((t) => t.value).join('\n')}\n`;
}
