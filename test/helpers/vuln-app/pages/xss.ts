import type { VulnPage } from '../app.js';

/** The xss pages and their safe twins. */
export const PAGES: VulnPage[] = [];
