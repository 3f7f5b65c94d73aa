// The booking system of record, editing the same store while reflows run: every few hundred ms it
// cancels a confirmed booking or moves one to a free slot in its own room on the same day, inside
// one write transaction, and logs the version each edit wrote so the audit can be replayed.
import { setTimeout as sleep } from 'node:timers/promises';
import { DateTime } from 'luxon';
import { openSqliteStore, type BookingRow, type Store, type StoreQueries } from '@reflow/db';
import type { Rng } from '@reflow/seed';

export interface BookingEdit {
  bookingId: string;
  kind: 'cancel' | 'move';
  /** The version this edit wrote (the booking's version right after it). */
  version: number;
  from: { roomId: string; startAt: number; status: string };
  to: { roomId: string; startAt: number; status: string };
}

const SHIFTS_MIN = [-120, -60, -30, -15, 15, 30, 60, 120];
const DAY_MS = 86_400_000;

export class BookingEditor {
  readonly edits: BookingEdit[] = [];
  /** Edits that found nothing to do (no free slot, or the booking changed first). */
  skipped = 0;
  readonly #hours = new Map<string, { opens: string; closes: string }>();

  private constructor(
    private readonly store: Store,
    private readonly timezone: string,
    private readonly monthRange: { from: number; to: number },
  ) {}

  /** An editor on the server's SQLite file, through a store of its own (a second connection). */
  static async open(databasePath: string, timezone: string, monthRange: { from: number; to: number }) {
    const editor = new BookingEditor(openSqliteStore(databasePath), timezone, monthRange);
    for (const room of await editor.store.site.listRooms())
      editor.#hours.set(room.id, { opens: room.opensAt, closes: room.closesAt });
    return editor;
  }

  /** Edits until `stopAt`, pausing 0–2×`everyMs` between edits. */
  async run(rng: Rng, everyMs: number, stopAt: number): Promise<void> {
    while (Date.now() < stopAt) {
      await sleep(rng.int(0, 2 * everyMs));
      await this.editOnce(rng);
    }
  }

  async editOnce(rng: Rng): Promise<void> {
    const edit = await this.store.transaction(async (tx) => {
      // A random room and a few days of the month: a small read while holding the write lock.
      const from = rng.int(this.monthRange.from, this.monthRange.to - 3 * DAY_MS);
      const roomId = rng.pick([...this.#hours.keys()]);
      const confirmed = await tx.bookings.overlapping({
        from,
        to: from + 3 * DAY_MS,
        roomIds: [roomId],
        statuses: ['confirmed'],
      });
      if (!confirmed.length) return undefined;
      const booking = rng.pick(confirmed);
      return rng.chance(0.3) ? this.#cancel(tx, booking) : this.#move(tx, booking, rng);
    });
    if (edit) this.edits.push(edit);
    else this.skipped++;
  }

  close(): Promise<void> {
    return this.store.close();
  }

  async #cancel(tx: StoreQueries, b: BookingRow): Promise<BookingEdit | undefined> {
    if (!(await tx.bookings.setStatus(b.id, b.version, 'cancelled'))) return undefined;
    return {
      bookingId: b.id,
      kind: 'cancel',
      version: b.version + 1,
      from: position(b),
      to: { ...position(b), status: 'cancelled' },
    };
  }

  async #move(tx: StoreQueries, b: BookingRow, rng: Rng): Promise<BookingEdit | undefined> {
    const length = b.endAt - b.startAt;
    const [opens, closes] = this.#openingOf(b);
    for (const shift of rng.shuffle(SHIFTS_MIN)) {
      const startAt = b.startAt + shift * 60_000;
      if (startAt < opens || startAt + length > closes) continue;
      if (await tx.bookings.firstConflict(b.roomId, startAt, startAt + length, [b.id])) continue;
      if (!(await tx.bookings.move(b.id, b.version, { roomId: b.roomId, startAt, endAt: startAt + length })))
        return undefined;
      return {
        bookingId: b.id,
        kind: 'move',
        version: b.version + 1,
        from: position(b),
        to: { roomId: b.roomId, startAt, status: b.status },
      };
    }
    return undefined;
  }

  /** The opening hours (epoch ms) of the booking's room on the booking's local day. */
  #openingOf(b: BookingRow): [number, number] {
    const hours = this.#hours.get(b.roomId);
    if (!hours) return [b.startAt, b.startAt];
    const day = DateTime.fromMillis(b.startAt, { zone: this.timezone }).startOf('day');
    const at = (hhmm: string) => {
      const [h, m] = hhmm.split(':').map(Number);
      return day.set({ hour: h, minute: m }).toMillis();
    };
    const closes = hours.closes === '24:00' || hours.closes === '00:00' ? day.toMillis() + DAY_MS : at(hours.closes);
    return [at(hours.opens), closes];
  }
}

const position = (b: BookingRow) => ({ roomId: b.roomId, startAt: b.startAt, status: b.status });
