import type { VulnPage } from '../app.js';

/** The sqli pages and their safe twins. */
export const PAGES: VulnPage[] = [];
