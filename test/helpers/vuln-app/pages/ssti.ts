import type { VulnPage } from '../app.js';

/** The ssti pages and their safe twins. */
export const PAGES: VulnPage[] = [];
