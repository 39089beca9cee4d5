import type { VulnPage } from '../app.js';

/** The jitter pages and their safe twins. */
export const PAGES: VulnPage[] = [];
