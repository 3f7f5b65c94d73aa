import { readFileSync } from 'node:fs';
import { importSite } from '@reflow/reflow';
import { loadConfig, openStore } from '@reflow/server-app';
import pino from 'pino';
import { storeEnv, type StoreOptions } from '../store-options.ts';

/** `reflow import FILE [--replace]`: validates the whole file, then writes it in one transaction. */
export async function runImport(file: string, options: { replace?: boolean } & StoreOptions): Promise<number> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    console.error(`Cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  let store;
  try {
    // The store the server would open with the same environment, or the one a flag names.
    const config = loadConfig({ ...process.env, ...storeEnv(options) });
    store = await openStore(config, pino({ level: 'warn' }, pino.destination(2)));
    await store.migrate();
    const summary = await importSite(raw, store, { replace: options.replace });
    console.log(
      `Imported ${summary.site} into ${store.location}: ${summary.rooms} rooms, ${summary.series} series, ${summary.bookings} bookings`,
    );
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  } finally {
    await store?.close();
  }
}
