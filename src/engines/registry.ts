/**
 * Which engine serves each scan type on this deployment, built from its configuration, and why a
 * type has none (DESIGN.md "Engines, one per scan type"). The API asks it before accepting a scan
 * (a type with no engine is refused with the reason), workers claim only the types it serves, and
 * the run executor takes its engine from it.
 *
 * Today: Rampart -> the built-in network scanner; OpenVas -> the same scanner as a fallback, said
 * in every run's notes; Nuclei -> the nuclei program when RAMPART_NUCLEI_MODE=binary (refused with
 * the reason when it is not installed); ZAP -> not available (its driver is still to come).
 *
 * This module is the one place in src/engines/ that knows the engines themselves (it wires them);
 * engines still never import each other.
 */
import { SCAN_TYPES, type ScanType } from '../shared/scan-types.js';
import type { Engine } from './engine.js';
import { findNucleiBinary } from './nuclei/binary/find-binary.js';
import { createNucleiBinaryEngine } from './nuclei/binary/nuclei-binary.engine.js';
import { createRampartEngine } from './rampart/rampart.engine.js';
import type { OptionCaps } from './rampart/options.js';

/** The engine serving a scan type, or why there is none. */
export type EngineChoice =
  /** `note` is said in every run's notes (e.g. that a fallback ran). */
  | { available: true; engine: Engine; note?: string }
  /** `reason` says what the deployment must configure; it is the 422's message and a claimed run's error. */
  | { available: false; reason: string };

export interface EngineRegistry {
  forScanType(type: ScanType): EngineChoice;
  /** The scan types an engine serves here, in the contract's order. */
  availableTypes(): ScanType[];
}

/** What the registry reads of the configuration (`Config['scan']` fits). */
export interface RegistrySettings {
  /** The deployment's scan limits: the caps of the engines' options; and whether the empty-password login may run (default: yes). */
  scan: OptionCaps & { emptyPasswordLogins?: boolean };
  /** The nuclei templates directory (`Config['nuclei']`). */
  nuclei?: { templatesDir: string };
  /** With `mode: 'binary'` the nuclei program serves Nuclei scans (`Config['nucleiCli']`). */
  nucleiCli?: { mode: 'builtin' | 'binary'; bin: string | undefined };
}

export const OPENVAS_FALLBACK_NOTE = "OpenVAS is not configured on this deployment: Rampart's network scanner ran instead.";

const UNAVAILABLE: Partial<Record<ScanType, string>> = {
  ZAP:
    'ZAP scans need an OWASP ZAP daemon that Rampart drives, and this deployment has none configured: this version of Rampart cannot drive ZAP yet. Scan the hosts with a Rampart scan meanwhile.',
  Nuclei:
    'Nuclei scans need the nuclei tool and its templates on the workers, and this deployment has none configured: this version of Rampart cannot run nuclei yet. Scan the hosts with a Rampart scan meanwhile.',
};

/**
 * The deployment's registry. `engines` replaces the engine of a type (tests serve any type with a
 * scripted engine this way; a replaced type is available, with no fallback note).
 */
export function createEngineRegistry(settings: RegistrySettings, engines: Partial<Record<ScanType, Engine>> = {}): EngineRegistry {
  const rampart = createRampartEngine({ caps: settings.scan, emptyPasswordLogins: settings.scan.emptyPasswordLogins ?? true });
  const choices = new Map<ScanType, EngineChoice>();
  for (const type of SCAN_TYPES) {
    const given = engines[type];
    if (given) choices.set(type, { available: true, engine: given });
    else if (type === 'Rampart') choices.set(type, { available: true, engine: rampart });
    else if (type === 'OpenVas') choices.set(type, { available: true, engine: rampart, note: OPENVAS_FALLBACK_NOTE });
    else choices.set(type, { available: false, reason: UNAVAILABLE[type] ?? `${type} scans are not available on this deployment.` });
  }
  if (settings.nucleiCli?.mode === 'binary' && !engines.Nuclei) choices.set('Nuclei', nucleiBinaryChoice(settings.nucleiCli.bin, settings.nuclei?.templatesDir, settings.scan));
  return {
    forScanType: (type) => choices.get(type) ?? { available: false, reason: `${type} scans are not available on this deployment.` },
    availableTypes: () => SCAN_TYPES.filter((type) => choices.get(type)?.available),
  };
}

/** Nuclei through the nuclei program (RAMPART_NUCLEI_MODE=binary), or why it cannot run. */
function nucleiBinaryChoice(bin: string | undefined, templatesDir: string | undefined, caps: OptionCaps): EngineChoice {
  const found = findNucleiBinary(bin);
  if ('reason' in found) {
    return { available: false, reason: `Nuclei scans are set to run the nuclei program (RAMPART_NUCLEI_MODE=binary), but ${found.reason} Install nuclei or set RAMPART_NUCLEI_BIN.` };
  }
  return { available: true, engine: createNucleiBinaryEngine({ bin: found.path, templatesDir, caps }) };
}
