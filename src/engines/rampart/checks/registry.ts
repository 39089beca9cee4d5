/**
 * Which detectors and checks the Rampart engine runs. New checks are added here, nowhere else.
 */
import type { Check, Endpoint, ServiceInfo } from './check.js';
import { guessServiceFromBanner } from '../services.js';

/** Every check, in the order they run on a service. */
export const DEFAULT_CHECKS: readonly Check[] = [];

/** Service detection. */
export async function detectDefault(_endpoint: Endpoint, banner: string | null): Promise<ServiceInfo> {
  const name = banner ? (guessServiceFromBanner(Buffer.from(banner)) ?? 'unknown') : 'unknown';
  return { name, product: null, version: null, cpe: null, tls: false, banner, details: {} };
}
