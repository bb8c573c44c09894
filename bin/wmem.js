#!/usr/bin/env node
// Entry point: runs the bundled CLI (built by `npm install` through the prepare script).
import { run } from '../dist/cli.js';

run(process.argv);
