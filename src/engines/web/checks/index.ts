/**
 * Every check of the web scanner and every rule they report, one module per area. A module
 * exports `CHECKS` (its `WebCheck`s) and `RULES` (the `WebRule` rows its findings use: name,
 * description, solution, CWE, references and the rating with its reason).
 */
import type { WebCheck, WebRule } from '../contract.js';
import * as cmdi from './cmdi.js';
import * as crlf from './crlf.js';
import * as csrf from './csrf.js';
import * as passive from './passive.js';
import * as redirect from './redirect.js';
import * as sqli from './sqli.js';
import * as ssti from './ssti.js';
import * as traversal from './traversal.js';
import * as upload from './upload.js';
import * as xss from './xss.js';

const MODULES = [passive, sqli, cmdi, xss, ssti, crlf, redirect, traversal, csrf, upload];

export const ALL_CHECKS: WebCheck[] = MODULES.flatMap((m) => m.CHECKS);
export const ALL_RULES: WebRule[] = MODULES.flatMap((m) => m.RULES);
