/**
 * Which engine serves each scan type on this deployment, built from its configuration, and why a
 * type has none (DESIGN.md "Engines, one per scan type"). The API asks it before accepting a scan
 * (a type with no engine is refused with the reason), workers claim only the types it serves, and
 * the run executor takes its engine from it.
 *
 * Today: Rampart -> the built-in network scanner; OpenVas -> a Greenbone gvmd driven over GMP
 * when one is configured (RAMPART_GVMD_*), else per RAMPART_OPENVAS_FALLBACK the built-in scanner
 * as a fallback, said in every run's notes and engine line (`rampart`, the default), or refused
 * with what to configure (`refuse`); Nuclei -> the built-in nuclei engine while its templates directory holds
 * templates (asked on each call, so a `rampart templates sync` needs no restart), or the nuclei
 * program when RAMPART_NUCLEI_MODE=binary (refused with the reason when it is not installed);
 * ZAP -> Rampart's built-in web application scanner (src/engines/web) on every deployment, or an
 * OWASP ZAP daemon driven over its API when RAMPART_ZAP_MODE=daemon (refused with the reason
 * without its URL and key); both replay login scripts with the one runner of web/login/.
 *
 * This module is the one place in src/engines/ that knows the engines themselves (it wires them);
 * engines still never import each other.
 */
import { SCAN_TYPES, type ScanType } from '../shared/scan-types.js';
import type { Engine, EngineEvent } from './engine.js';
import type { LoginScriptSupport } from './web/login/support.js';
import { findNucleiBinary } from './nuclei/binary/find-binary.js';
import { createNucleiBinaryEngine } from './nuclei/binary/nuclei-binary.engine.js';
import { createRampartEngine } from './rampart/rampart.engine.js';
import type { OptionCaps } from './rampart/options.js';
import { createOpenvasEngine, type GvmdSettings } from './openvas/openvas.engine.js';
import { createNucleiEngine } from './nuclei/nuclei.engine.js';
import { NUCLEI_EXECUTORS } from './nuclei/executors.js';
import { SUPPORTED_FEATURES } from './nuclei/supported-features.js';
import { findTemplatesDirProblem } from './nuclei/templates-dir.js';
import { createRampartDiscovery } from './nuclei-discovery.js';
import { createLoginRunner } from './web/login/run-login.js';
import { loginScriptSupport } from './web/login/support.js';
import { createWebEngine } from './web/web.engine.js';
import { createZapEngine, type ZapLogin } from './zap/zap.engine.js';

/** The engine serving a scan type, or why there is none. */
export type EngineChoice =
  /**
   * `note` is said in every run's notes (e.g. that a fallback ran). `loginScripts` (ZAP): whether
   * this deployment can replay login scripts; scan creation refuses `zap_authenticated` when not.
   */
  | { available: true; engine: Engine; note?: string; loginScripts?: () => LoginScriptSupport }
  /** `reason` says what the deployment must configure; it is the 422's message and a claimed run's error. */
  | { available: false; reason: string };

export interface EngineRegistry {
  forScanType(type: ScanType): EngineChoice;
  /**
   * The scan types an engine serves here, in the contract's order: the workers claim these. A type
   * whose engine waits for data (Nuclei without templates) is among them, so that a later
   * `rampart templates sync` needs no worker restart; until then its runs fail with the reason.
   */
  availableTypes(): ScanType[];
}

/** What the registry reads of the configuration (`Config['scan']` fits). */
export interface RegistrySettings {
  /** The deployment's scan limits: the caps of the engines' options; and whether the empty-password login may run (default: yes). */
  scan: OptionCaps & { emptyPasswordLogins?: boolean };
  /** The built-in nuclei engine's settings (`Config['nuclei']`); absent: Nuclei scans are not available. */
  nuclei?: { templatesDir: string; templatesDirSet: boolean; unsafe: boolean; timeoutMs: number };
  /** With `mode: 'binary'` the nuclei program serves Nuclei scans (`Config['nucleiCli']`). */
  nucleiCli?: { mode: 'builtin' | 'binary'; bin: string | undefined };
  /** Replaying ZAP login scripts (`Config['loginScripts']`): `createLoginRunner` and `loginScriptSupport` of web/login/. */
  loginScripts?: { python: string; timeoutMs: number };
  /** With `mode: 'daemon'` an OWASP ZAP daemon serves ZAP scans (`Config['zap']`). */
  zap?: { mode: 'builtin' | 'daemon'; url: string | undefined; apiKey: string | undefined };
  /** A Greenbone gvmd that runs OpenVas scans (`Config['gvmd']`); absent: the fallback decides. */
  gvmd?: GvmdSettings | undefined;
  /** Without gvmd: Rampart's scanner runs OpenVas scans, saying so (`rampart`, default), or they are refused (`refuse`). */
  openvasFallback?: 'rampart' | 'refuse';
}

export const OPENVAS_FALLBACK_NOTE = "OpenVAS is not configured on this deployment: Rampart's network scanner ran instead.";

/** What the run's engine line adds when Rampart's scanner runs an OpenVas scan: `rampart 0.3.0 instead of OpenVAS, ...`. */
export const OPENVAS_FALLBACK_DETAIL = 'instead of OpenVAS, which this deployment has not configured';

/** Why OpenVas scans are refused with RAMPART_OPENVAS_FALLBACK=refuse and no gvmd. */
export const OPENVAS_REFUSED_REASON =
  'OpenVas scans need a Greenbone gvmd: set RAMPART_GVMD_SOCKET, or RAMPART_GVMD_HOST with RAMPART_GVMD_CA_FILE, and RAMPART_GVMD_USERNAME and RAMPART_GVMD_PASSWORD (this deployment refuses them without one: RAMPART_OPENVAS_FALLBACK=refuse).';

/**
 * Rampart's scanner standing in for OpenVAS: the same engine, whose identity says on every run
 * that it ran instead of OpenVAS (the run's engine line, and so every report, beside the note).
 */
function openvasFallback(rampart: Engine): Engine {
  const instead = (event: EngineEvent): EngineEvent => (event.type === 'engine' ? { ...event, detail: [event.detail, OPENVAS_FALLBACK_DETAIL].filter(Boolean).join(' ') } : event);
  return {
    name: rampart.name,
    version: rampart.version,
    ...(rampart.optionsSchema ? { optionsSchema: rampart.optionsSchema } : {}),
    async *run(job) {
      yield instead({ type: 'engine', name: rampart.name, version: rampart.version });
      for await (const event of rampart.run(job)) yield instead(event);
    },
  };
}

/** The engine of OpenVas scans: gvmd when configured, else the deployment's fallback choice. */
function openvasChoice(settings: RegistrySettings, rampart: Engine): EngineChoice {
  if (settings.gvmd) return { available: true, engine: createOpenvasEngine(settings.gvmd) };
  if (settings.openvasFallback === 'refuse') return { available: false, reason: OPENVAS_REFUSED_REASON };
  return { available: true, engine: openvasFallback(rampart), note: OPENVAS_FALLBACK_NOTE };
}

const UNAVAILABLE: Partial<Record<ScanType, string>> = {
  Nuclei: 'Nuclei scans need a nuclei templates directory, and this deployment has none configured: run `rampart templates sync` or set RAMPART_NUCLEI_TEMPLATES.',
};

/**
 * The engine of ZAP scans: Rampart's web scanner, or a ZAP daemon (RAMPART_ZAP_MODE=daemon). Both
 * replay login scripts with one runner; `loginScripts` tells scan creation whether this deployment
 * can (python3-selenium, chromium, chromium-driver), so that `zap_authenticated` is refused up front
 * where it cannot.
 */
function zapChoice(settings: RegistrySettings): EngineChoice {
  const python = settings.loginScripts?.python;
  const login = createLoginRunner({ timeoutMs: settings.loginScripts?.timeoutMs ?? 60_000, ...(python ? { python } : {}) });
  const loginScripts = () => loginScriptSupport(python ? { python } : {});
  if (settings.zap?.mode === 'daemon') return zapDaemonChoice(settings.zap, login, loginScripts);
  return { available: true, engine: createWebEngine({ caps: settings.scan, login }), loginScripts };
}

/** The nuclei engine's choice: available while its templates directory holds templates. */
function nucleiChoice(settings: RegistrySettings): () => EngineChoice {
  const nuclei = settings.nuclei;
  if (!nuclei) return () => ({ available: false, reason: UNAVAILABLE.Nuclei! });
  const engine = createNucleiEngine({
    templatesDir: nuclei.templatesDir,
    timeoutMs: nuclei.timeoutMs,
    unsafe: nuclei.unsafe,
    caps: settings.scan,
    executors: NUCLEI_EXECUTORS,
    supported: SUPPORTED_FEATURES,
    discover: createRampartDiscovery(settings.scan),
  });
  return () => {
    const problem = findTemplatesDirProblem(nuclei.templatesDir);
    if (!problem) return { available: true, engine };
    const fix = nuclei.templatesDirSet ? 'point RAMPART_NUCLEI_TEMPLATES at a directory of nuclei templates' : 'run `rampart templates sync` or set RAMPART_NUCLEI_TEMPLATES';
    return { available: false, reason: `Nuclei scans need nuclei templates, and the templates directory ${problem}: ${fix}.` };
  };
}

/**
 * The deployment's registry. `engines` replaces the engine of a type (tests serve any type with a
 * scripted engine this way; a replaced type is available, with no fallback note).
 */
export function createEngineRegistry(settings: RegistrySettings, engines: Partial<Record<ScanType, Engine>> = {}): EngineRegistry {
  const rampart = createRampartEngine({ caps: settings.scan, emptyPasswordLogins: settings.scan.emptyPasswordLogins ?? true });
  const choices = new Map<ScanType, EngineChoice | (() => EngineChoice)>();
  for (const type of SCAN_TYPES) {
    const given = engines[type];
    if (given) choices.set(type, { available: true, engine: given });
    else if (type === 'Nuclei') choices.set(type, nucleiChoice(settings));
    else if (type === 'Rampart') choices.set(type, { available: true, engine: rampart });
    else if (type === 'OpenVas') choices.set(type, openvasChoice(settings, rampart));
    else if (type === 'ZAP') choices.set(type, zapChoice(settings));
    else choices.set(type, { available: false, reason: UNAVAILABLE[type] ?? `${type} scans are not available on this deployment.` });
  }
  if (settings.nucleiCli?.mode === 'binary' && !engines.Nuclei) choices.set('Nuclei', nucleiBinaryChoice(settings.nucleiCli.bin, settings.nuclei, settings.scan));
  const choiceOf = (type: ScanType): EngineChoice => {
    const choice = choices.get(type);
    if (typeof choice === 'function') return choice();
    return choice ?? { available: false, reason: `${type} scans are not available on this deployment.` };
  };
  return {
    forScanType: choiceOf,
    availableTypes: () => SCAN_TYPES.filter((type) => (settings.nuclei && settings.nucleiCli?.mode !== 'binary' && type === 'Nuclei') || choiceOf(type).available),
  };
}

/** Nuclei through the nuclei program (RAMPART_NUCLEI_MODE=binary), or why it cannot run. */
function nucleiBinaryChoice(bin: string | undefined, nuclei: RegistrySettings['nuclei'], caps: OptionCaps): EngineChoice {
  const found = findNucleiBinary(bin);
  if ('reason' in found) {
    return { available: false, reason: `Nuclei scans are set to run the nuclei program (RAMPART_NUCLEI_MODE=binary), but ${found.reason} Install nuclei or set RAMPART_NUCLEI_BIN.` };
  }
  const engine = createNucleiBinaryEngine({ bin: found.path, templatesDir: nuclei?.templatesDir, caps, unsafe: nuclei?.unsafe ?? false, ...(nuclei ? { timeoutMs: nuclei.timeoutMs } : {}) });
  return { available: true, engine };
}

/** ZAP scans through a ZAP daemon (RAMPART_ZAP_MODE=daemon), or why they cannot run. */
function zapDaemonChoice(zap: NonNullable<RegistrySettings['zap']>, login: ZapLogin, loginScripts: () => LoginScriptSupport): EngineChoice {
  const missing = [zap.url ? undefined : 'RAMPART_ZAP_URL', zap.apiKey ? undefined : 'RAMPART_ZAP_API_KEY'].filter((name) => name !== undefined);
  if (!zap.url || !zap.apiKey) {
    return {
      available: false,
      reason: `ZAP scans are set to run on a ZAP daemon (RAMPART_ZAP_MODE=daemon), but ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not set. Set both, or RAMPART_ZAP_MODE=builtin.`,
    };
  }
  return { available: true, engine: createZapEngine({ url: zap.url, apiKey: zap.apiKey, login }), loginScripts };
}
