import type { VulnPage } from '../app.js';

/** The cmdi pages and their safe twins. */
export const PAGES: VulnPage[] = [];
