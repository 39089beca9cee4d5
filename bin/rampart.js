#!/usr/bin/env node
// The installed `rampart` command: runs the compiled CLI (built by `npm ci` through `prepare`).
import '../dist/src/main.js';
