import type { VulnPage } from '../app.js';

/** The traversal pages and their safe twins. */
export const PAGES: VulnPage[] = [];
