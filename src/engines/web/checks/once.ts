/**
 * The memory of what a check already did or reported in a scan, so that a weakness every page
 * shows is reported once and a folder is probed once (the engine's own de-duplication of findings
 * is the backstop; this keeps checks from rebuilding the same draft or probes).
 */
import type { CheckContext } from '../contract.js';

const reported = new WeakMap<CheckContext, Set<string>>();

/** True the first time `key` is seen in this scan (this context), false after. */
export function firstTime(ctx: CheckContext, key: string): boolean {
  let keys = reported.get(ctx);
  if (!keys) reported.set(ctx, (keys = new Set()));
  if (keys.has(key)) return false;
  keys.add(key);
  return true;
}
