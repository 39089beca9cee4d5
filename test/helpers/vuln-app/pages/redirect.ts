import type { VulnPage } from '../app.js';

/** The redirect pages and their safe twins. */
export const PAGES: VulnPage[] = [];
