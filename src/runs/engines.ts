/**
 * Which engine runs which scan type (DESIGN.md "Engines, one per scan type"). OpenVas scans run
 * the built-in network scanner until a Greenbone server is configured; each run records the engine
 * that actually ran.
 */
import type { Engine } from '../engines/engine.js';
import { createRampartEngine } from '../engines/rampart/rampart.engine.js';
import type { ScanType } from '../db/schema.js';

export interface EngineRegistry {
  /** The engine for the scan type, or a sentence saying why none is available. */
  forScanType(type: ScanType): Engine | string;
}

export function createEngineRegistry(): EngineRegistry {
  const rampart = createRampartEngine();
  return {
    forScanType(type) {
      switch (type) {
        case 'Rampart':
        case 'OpenVas':
          return rampart;
        case 'ZAP':
          return 'ZAP scans are not available yet in this version of Rampart: the web application engine is still to come.';
        case 'Nuclei':
          return 'Nuclei scans are not available yet in this version of Rampart: the template engine is still to come.';
      }
    },
  };
}
