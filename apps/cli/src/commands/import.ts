import { readFileSync } from 'node:fs';
import { migrateDatabase, openDatabase, queriesFor } from '@reflow/db';
import { importSite } from '@reflow/reflow';

/** `reflow import FILE [--replace]`: validates the whole file, then writes it in one transaction. */
export function runImport(file: string, options: { replace?: boolean; database?: string }): number {
  const path = options.database ?? process.env.DATABASE_PATH ?? './data/reflow.db';
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    console.error(`Cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const connection = openDatabase(path);
  try {
    migrateDatabase(connection);
    const summary = importSite(raw, queriesFor(connection), { replace: options.replace });
    console.log(
      `Imported ${summary.site} into ${path}: ${summary.rooms} rooms, ${summary.series} series, ${summary.bookings} bookings`,
    );
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  } finally {
    connection.close();
  }
}
