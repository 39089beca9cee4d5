/**
 * The agent download (GET /api/scans/{uuid}/agent, and the scan page's button): one file, run with
 * `node agent.js`, holding a comment on how to run it, the line `globalThis.RAMPART_AGENT = {...};`
 * (the service's URL, the scan, a new credential) and the bundled agent program. Each download
 * revokes the scan's previous agent.
 */
import fs from 'node:fs/promises';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import { AGENT_CONFIG_GLOBAL, type AgentConfig } from '../shared/agent-protocol.js';
import { AppError, validationError } from '../shared/errors.js';
import { requireScan } from '../scans/scans.service.js';
import { issueCredential } from './agent-credentials.service.js';

export interface AgentFile {
  filename: string;
  /** The response headers of the download (a script, an attachment, never cached). */
  headers: Record<string, string>;
  body: Buffer;
  expiresAt: Date;
}

const NOT_BUILT = 'The agent bundle is not built: run npm run build.';

/** The bundle's bytes; 503 when it is absent (never a file that would not run). */
async function readBundle(bundlePath: string): Promise<Buffer> {
  try {
    return await fs.readFile(bundlePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new AppError('service_unavailable', NOT_BUILT, { context: { bundle: bundlePath } });
    throw error;
  }
}

/** Text safe inside a block comment on one line. */
function commentText(text: string): string {
  return text.replace(/\*\//g, '* /').replace(/[\r\n\u2028\u2029]+/g, ' ');
}

/** The header, config line and bundle as one script; a shebang of the bundle stays the first line. */
export function buildAgentFile(bundle: Buffer, config: AgentConfig): Buffer {
  let code = bundle.toString('utf8');
  let shebang = '';
  if (code.startsWith('#!')) {
    const end = code.indexOf('\n');
    shebang = `${code.slice(0, end === -1 ? code.length : end)}\n`;
    code = end === -1 ? '' : code.slice(end + 1);
  }
  const header = [
    '/*',
    ` * Rampart local agent for the scan "${commentText(config.scanName)}" (${config.scanUuid}) on ${commentText(config.baseUrl)}.`,
    ` * Its credential expires on ${config.credentialExpiresAt}; downloading the agent again revokes this one.`,
    ' * Run it on a machine inside the network to scan (Node.js 20 or later, nothing to install):',
    ' *   node agent.js                      run the scan waiting for an agent, then exit',
    ' *   node agent.js --daemon             keep running and take each scheduled run',
    ' *   node agent.js --ca FILE            trust this CA for the service (a private certificate)',
    ' *   node agent.js --gvmd-socket PATH   run OpenVAS through a local gvmd instead of the built-in scanner',
    ' * Keep this file private: it holds the credential.',
    ' */',
  ].join('\n');
  return Buffer.from(`${shebang}${header}\nglobalThis.${AGENT_CONFIG_GLOBAL} = ${JSON.stringify(config)};\n${code}`, 'utf8');
}

/** Downloads the agent of the account's Unmanaged scan: a new credential, the previous one revoked. */
export async function downloadAgent(deps: { db: Db; config: Config; clock: () => Date }, userId: number, uuid: string): Promise<AgentFile> {
  const scan = await requireScan(deps.db, userId, uuid);
  if (scan.scan_frequency !== 'Unmanaged') {
    throw validationError({ scan_frequency: ['The local agent runs Unmanaged scans only; this scan is run by the service.'] });
  }
  // Read first: a deployment without the bundle must not revoke the agent already running.
  const bundle = await readBundle(deps.config.localAgent.bundlePath);
  const { token, expiresAt } = await issueCredential(deps.db, scan.id, deps.clock(), deps.config.localAgent.credentialDays);
  const agentConfig: AgentConfig = {
    baseUrl: deps.config.baseUrl,
    scanUuid: scan.uuid,
    scanName: scan.scan_name,
    credential: token,
    credentialExpiresAt: expiresAt.toISOString(),
  };
  const filename = `rampart-agent-${scan.uuid.slice(0, 8)}.js`;
  const headers = { 'content-type': 'application/javascript; charset=utf-8', 'content-disposition': `attachment; filename="${filename}"`, 'cache-control': 'no-store' };
  return { filename, headers, body: buildAgentFile(bundle, agentConfig), expiresAt };
}
