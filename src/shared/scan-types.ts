/** The scan types of the API contract; which engine serves each is the registry's (src/engines/registry.ts). */
export const SCAN_TYPES = ['Rampart', 'OpenVas', 'ZAP', 'Nuclei'] as const;
export type ScanType = (typeof SCAN_TYPES)[number];
