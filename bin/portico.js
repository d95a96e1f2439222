#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so there is no build step between a clone and a start.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
