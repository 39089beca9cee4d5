/**
 * PLACEHOLDER INTERFACE — the implementation is being written (see the helper's task). The
 * interface below is fixed: engines and the run orchestrator depend on it.
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'metadata'
  | 'multicast'
  | 'unspecified'
  | 'reserved';

export interface AddressVerdict {
  allowed: boolean;
  /** The class of the address; for a refusal, why (e.g. 'loopback'). */
  class: AddressClass;
}

export interface AddressGuard {
  /** Whether one IPv4 or IPv6 address may be contacted. */
  check(address: string): AddressVerdict;
}
