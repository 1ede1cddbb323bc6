#!/usr/bin/env node
// Entry for `npx cairn`: runs the compiled CLI (build with `npm run build`).
import '../dist/src/cli/main.js';
