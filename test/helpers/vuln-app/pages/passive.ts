import type { VulnPage } from '../app.js';

/** The passive pages and their safe twins. */
export const PAGES: VulnPage[] = [];
