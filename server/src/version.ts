import { readFileSync } from 'node:fs';
import { projectPath } from './config.ts';

const pkg = JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string };

export const VERSION: string = pkg.version;
