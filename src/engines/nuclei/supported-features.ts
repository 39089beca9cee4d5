/**
 * The one feature set the built-in nuclei engine supports: what `findBlockingFeatures`
 * (templates/features.ts) compares a template's needs with. The engine uses it to skip templates it
 * cannot run (and `rampart templates check` may print the executable share from it, so both say
 * the same thing). It is the http executor's own list (execute/http-features.ts) plus the tcp (text
 * and hex inputs, `tls://`), ssl and dns blocks of the network executors, whose operators are the
 * same matchers and extractors. Not interactsh (no OOB server of ours), not `-var` inputs (a scan
 * cannot give them yet), not JavaScript flows. `http.unsafe` is in it, but an `unsafe` template
 * passes the safety check only where the deployment opted in (RAMPART_NUCLEI_UNSAFE).
 */
import { HTTP_EXECUTOR_FEATURES } from './execute/http-features.js';
import { NETWORK_EXECUTOR_FEATURES } from './execute/network-features.js';

/** Feature names (and `prefix*` wildcards) the built-in engine executes. */
export const SUPPORTED_FEATURES: ReadonlySet<string> = new Set([...HTTP_EXECUTOR_FEATURES, ...NETWORK_EXECUTOR_FEATURES]);
