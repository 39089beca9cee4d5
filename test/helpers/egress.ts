/** The egress engine tests connect through: the guard allows loopback (127.0.0.0/8, ::1) only. */
import { createAddressGuard } from '../../src/shared/address-guard.js';
import { createEgress, type Egress } from '../../src/shared/egress.js';

/** One shared egress for loopback tests (its remembered verdicts are per address, so sharing is safe). */
export const LOOPBACK_EGRESS: Egress = createEgress({ guard: createAddressGuard(['127.0.0.0/8', '::1/128']) });
