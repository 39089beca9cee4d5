/** Every page of the test application, one module per area (each with its safe twins). */
import type { VulnPage } from '../app.js';
import { PAGES as CMDI } from './cmdi.js';
import { PAGES as CRAWL } from './crawl.js';
import { PAGES as CRLF } from './crlf.js';
import { PAGES as CSRF } from './csrf.js';
import { PAGES as JITTER } from './jitter.js';
import { PAGES as PASSIVE } from './passive.js';
import { PAGES as REDIRECT } from './redirect.js';
import { PAGES as SQLI } from './sqli.js';
import { PAGES as SSTI } from './ssti.js';
import { PAGES as TRAVERSAL } from './traversal.js';
import { PAGES as UPLOAD } from './upload.js';
import { PAGES as XSS } from './xss.js';

export const ALL_PAGES: VulnPage[] = [...SQLI, ...CMDI, ...JITTER, ...XSS, ...SSTI, ...CRLF, ...REDIRECT, ...TRAVERSAL, ...CSRF, ...UPLOAD, ...PASSIVE, ...CRAWL];
