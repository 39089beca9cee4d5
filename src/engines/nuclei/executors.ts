/**
 * The protocol executors the engine runs templates with, and the template features they implement
 * (templates/features.ts vocabulary): the reference's level L8 (every feature up to tcp, ssl and
 * dns; no interactsh, no `-var` inputs), for the families that have an executor.
 */
import type { TemplateExecutor } from './execute/contract.js';
import type { ProtocolFamily } from './selection.js';
import { levelFeatureSets } from './templates/levels.js';

/** One executor per protocol family. */
export const NUCLEI_EXECUTORS: Partial<Record<ProtocolFamily, TemplateExecutor>> = {};

/** The features the executors implement. */
export const NUCLEI_SUPPORTED_FEATURES: ReadonlySet<string> = new Set(levelFeatureSets().find((level) => level.level === 'L8')?.supported ?? []);
