/**
 * Which detectors and checks the Rampart engine runs. New checks are added here, nowhere else.
 */
import type { Check, Endpoint, ServiceInfo } from './check.js';
import { detectService } from '../services/detect.js';
import { cleartextCheck } from './cleartext.js';
import { httpCheck } from './http.js';
import { mysqlEmptyPasswordCheck, mysqlTlsCheck } from './mysql.js';
import { sshAuthMethodsCheck } from './ssh-auth.js';
import { sshCheck } from './ssh.js';
import { tlsCheck } from './tls.js';
import { unauthChecks } from './unauth.js';

/** Every check, in the order they run on a service. */
export const DEFAULT_CHECKS: readonly Check[] = [tlsCheck, httpCheck, sshCheck, sshAuthMethodsCheck, ...unauthChecks, mysqlEmptyPasswordCheck, mysqlTlsCheck, cleartextCheck];

/** Service detection: protocol probes (services/detect.ts). */
export function detectDefault(endpoint: Endpoint, banner: string | null): Promise<ServiceInfo> {
  return detectService(endpoint, banner);
}
