import type { VulnPage } from '../app.js';

/** The csrf pages and their safe twins. */
export const PAGES: VulnPage[] = [];
