// A site file as text, both ways. Writing has one canonical form (2-space indent, trailing
// newline) shared by write-demo.ts and the test that keeps the committed JSON from drifting.
// Reading only parses: validation is the importer's job (packages/reflow).
import { readFileSync } from 'node:fs';
import type { SiteFile } from './site-file.ts';

export function renderSiteJson(site: SiteFile): string {
  return `${JSON.stringify(site, null, 2)}\n`;
}

export function readSiteFile(path: string): SiteFile {
  return JSON.parse(readFileSync(path, 'utf8')) as SiteFile;
}
