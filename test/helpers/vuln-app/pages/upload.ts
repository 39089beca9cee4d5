import type { VulnPage } from '../app.js';

/** The upload pages and their safe twins. */
export const PAGES: VulnPage[] = [];
