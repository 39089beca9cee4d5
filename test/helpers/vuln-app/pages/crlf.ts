import type { VulnPage } from '../app.js';

/** The crlf pages and their safe twins. */
export const PAGES: VulnPage[] = [];
