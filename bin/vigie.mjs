#!/usr/bin/env node
// `npx vigie <command>`: the TypeScript sources run through tsx, as npm start does.
import { register } from 'tsx/esm/api';

register();
await import('../server/src/cli/vigie.ts');
