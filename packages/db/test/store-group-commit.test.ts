// Group commit, on both stores: creates that reach the store together are committed in one
// transaction, each in its own savepoint, so a refused create (a limit) or a duplicate changes
// nothing for the others; a create arriving while a batch commits waits for the next one.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { STORE_KINDS, opener, newTask } from './store-harness.ts';

for (const kind of STORE_KINDS) {
  describe(`group commit: ${kind.name}`, () => {
    const open = opener(kind);

    test('one batch: a refused create and a duplicate change nothing for the others, all in one commit', async () => {
      const { store } = await open();
      const before = store.groupCommit;
      const tasks = Array.from({ length: 6 }, (_, i) => newTask({ id: `tsk_batch_${i}`, dedupeKey: `key-${i}` }));
      const duplicate = { ...tasks[0], id: 'tsk_batch_dup' };
      const refused = tasks[3];
      // All submitted in one turn of the event loop: one batch.
      const settled = await Promise.allSettled([
        ...tasks.map((task) =>
          store.tasks.createOrFind(task, { message: 'Queued' }, async (tx) => {
            // The admit runs inside the batch's transaction and sees the creates before it.
            assert.ok((await tx.principals.activeTaskCount(task.owner)) >= 0);
            if (task === refused) throw new Error('limit reached for this one');
          }),
        ),
        store.tasks.createOrFind(duplicate, { message: 'Queued' }),
      ]);
      const after = store.groupCommit;
      assert.equal(after.batches - before.batches, 1, 'one batch');
      assert.equal(after.creates - before.creates, 7, 'holding all seven creates');

      assert.equal(settled[3].status, 'rejected');
      assert.match(String(settled[3].reason), /limit reached for this one/);
      assert.equal(await store.tasks.get(refused.id), undefined, 'the refused create wrote nothing');
      assert.deepEqual(await store.tasks.events(refused.id), []);
      for (const i of [0, 1, 2, 4, 5]) {
        const outcome = settled[i];
        assert.equal(outcome.status, 'fulfilled', `create ${i} committed`);
        assert.equal((outcome as PromiseFulfilledResult<{ created: boolean }>).value.created, true);
        const row = await store.tasks.get(tasks[i].id);
        assert.equal(row?.status, 'working');
        assert.deepEqual(
          (await store.tasks.events(tasks[i].id)).map((e) => e.kind),
          ['created'],
        );
      }
      // The duplicate, after its twin in the same batch, found the twin's row (same transaction).
      const dup = settled[6] as PromiseFulfilledResult<{ task: { id: string }; created: boolean }>;
      assert.equal(dup.status, 'fulfilled');
      assert.deepEqual([dup.value.task.id, dup.value.created], [tasks[0].id, false]);
      assert.equal(await store.tasks.get(duplicate.id), undefined);
    });

    test('one batch without limits (one statement on PostgreSQL): an open duplicate is found, the same work twice is made once', async () => {
      const { store } = await open();
      const open_ = newTask({ id: 'tsk_open', dedupeKey: 'open-work' });
      await store.tasks.createOrFind(open_, { message: 'Queued' });
      const fresh = Array.from({ length: 5 }, (_, i) =>
        newTask({ id: `tsk_plain_${i}`, dedupeKey: `plain-${i}`, scopeKey: i === 2 ? 'studio-a' : undefined }),
      );
      const again = { ...fresh[1], id: 'tsk_plain_again' };
      const otherOwner = { ...fresh[1], id: 'tsk_plain_bob', owner: 'bob' };
      const before = store.groupCommit;
      const outcomes = await Promise.all(
        [...fresh, { ...open_, id: 'tsk_open_again' }, again, otherOwner].map((task) =>
          store.tasks.createOrFind(task, { message: `Queued ${task.id}`, data: { by: task.owner } }),
        ),
      );
      assert.equal(store.groupCommit.batches - before.batches, 1, 'one batch');
      assert.deepEqual(
        outcomes.map((o) => [o.task.id, o.created]),
        [...fresh.map((t) => [t.id, true]), ['tsk_open', false], ['tsk_plain_1', false], ['tsk_plain_bob', true]],
      );
      for (const task of [...fresh, otherOwner]) {
        const row = await store.tasks.get(task.id);
        assert.ok(row, `${task.id} was written`);
        assert.equal(row.status, 'working');
        assert.deepEqual(row.input, task.input);
        assert.equal(row.scopeKey, task.scopeKey ?? null);
        const events = await store.tasks.events(task.id);
        assert.deepEqual(
          events.map((e) => [e.kind, e.message]),
          [['created', `Queued ${task.id}`]],
        );
      }
      assert.equal(await store.tasks.get('tsk_open_again'), undefined);
      assert.equal(await store.tasks.get('tsk_plain_again'), undefined);
    });

    test('a batch carries any text whole: quotes, backslashes, commas, braces, NULL, newlines and emoji in every text column', async () => {
      const { store } = await open();
      // On PostgreSQL the batch travels as array parameters (unnest): each of these would break a
      // hand-made array literal.
      const awkward = ['say "hi", then {leave}', 'back\\slash \\"quoted\\"', 'NULL', '', 'line\nbreak 🎛️ ünï'];
      const tasks = awkward.map((text, i) =>
        newTask({
          id: `tsk_text_${i}`,
          owner: `owner ${text}`,
          dedupeKey: `key ${text}`,
          statusMessage: text,
          input: { text, list: [text, null, { nested: text }] },
          scopeKey: i % 2 === 0 ? `scope ${text}` : undefined,
          scopeStart: i % 2 === 0 ? 1_000 : undefined,
          scopeEnd: i % 2 === 0 ? 2_000 : undefined,
        }),
      );
      const outcomes = await Promise.all(
        tasks.map((task) => store.tasks.createOrFind(task, { message: task.statusMessage, data: task.input })),
      );
      assert.deepEqual(
        outcomes.map((o) => o.created),
        tasks.map(() => true),
      );
      for (const task of tasks) {
        const row = (await store.tasks.get(task.id))!;
        assert.deepEqual(
          [row.owner, row.dedupeKey, row.statusMessage, row.input, row.scopeKey, row.scopeStart, row.scopeEnd],
          [
            task.owner,
            task.dedupeKey,
            task.statusMessage,
            task.input,
            task.scopeKey ?? null,
            task.scopeStart ?? null,
            task.scopeEnd ?? null,
          ],
        );
        const [created] = await store.tasks.events(task.id);
        assert.deepEqual([created.message, created.data], [task.statusMessage, task.input]);
        // The same work again finds this row (the duplicate rule compares the texts exactly).
        const again = await store.tasks.createOrFind({ ...task, id: `${task.id}_again` }, { message: 'again' });
        assert.deepEqual([again.task.id, again.created], [task.id, false]);
      }
    });

    test('batches commit side by side up to the store’s lanes; a create arriving with every lane busy waits for the next batch', async () => {
      const { store } = await open();
      const before = store.groupCommit;
      const { lanes } = before;
      assert.equal(
        lanes,
        kind.name === 'sqlite' ? 1 : 2,
        'SQLite has one writer; a PostgreSQL node commits two batches at once',
      );
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let allOpen!: () => void;
      const everyLaneOpen = new Promise<void>((resolve) => (allOpen = resolve));
      let open_ = 0;
      const holders: Promise<{ created: boolean }>[] = [];
      for (let lane = 0; lane < lanes; lane++) {
        // Other owners, so no lane waits for another's owner lock: each batch's transaction is open at once.
        const task = newTask({ id: `tsk_held_${lane}`, owner: `owner-${lane}`, dedupeKey: `held-${lane}` });
        holders.push(
          store.tasks.createOrFind(task, { message: 'Queued' }, async () => {
            if (++open_ === lanes) allOpen();
            await held;
          }),
        );
        // The next create in a later turn of the event loop: a batch, and a lane, of its own.
        await new Promise((resolve) => setImmediate(resolve));
      }
      await everyLaneOpen;
      // Every lane's transaction is open (its admit is waiting): this one must wait for a lane.
      let released = false;
      let admittedWhileHeld: boolean | undefined;
      const late = store.tasks.createOrFind(
        newTask({ id: 'tsk_late', owner: 'owner-late', dedupeKey: 'late' }),
        { message: 'Queued' },
        async () => {
          admittedWhileHeld = !released;
        },
      );
      // Time for a free lane to have run it (several round trips), had there been one.
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(admittedWhileHeld, undefined, 'not started while every lane is busy');
      released = true;
      release();
      for (const holder of holders) assert.equal((await holder).created, true);
      assert.equal((await late).created, true);
      assert.equal(admittedWhileHeld, false, 'started once a lane was free');
      assert.equal(store.groupCommit.batches - before.batches, lanes + 1, 'a batch per lane, then the late one');
      assert.equal((await store.tasks.get('tsk_late'))?.status, 'working');
    });

    // On SQLite every write waits for the one open transaction; the owner lock is PostgreSQL's.
    if (kind.name === 'postgres')
      test('only a create with limits locks its owner: a limited create of that owner waits, one without limits does not', async () => {
        const { store } = await open();
        const owner = 'owner-shared';
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let admitted!: () => void;
        const holding = new Promise<void>((resolve) => (admitted = resolve));
        // A limited create whose admit waits: its batch's transaction holds the owner's lock.
        const holder = store.tasks.createOrFind(
          newTask({ id: 'tsk_holder', owner, dedupeKey: 'holder' }),
          { message: 'Queued' },
          async () => {
            admitted();
            await held;
          },
        );
        await holding;
        // Without limits, the same owner, other work: through the other lane, and inside a caller's
        // transaction; neither waits for the holder.
        const plain = await store.tasks.createOrFind(newTask({ id: 'tsk_plain', owner, dedupeKey: 'plain' }), {
          message: 'Queued',
        });
        const inCallerTx = await store.transaction((tx) =>
          tx.tasks.createOrFind(newTask({ id: 'tsk_in_tx', owner, dedupeKey: 'in-tx' }), { message: 'Queued' }),
        );
        assert.deepEqual([plain.created, inCallerTx.created], [true, true]);
        // With limits, the same owner, other work: its count must see the holder, so it waits.
        let countedWhileHeld: number | undefined;
        let counted: number | undefined;
        let released = false;
        const limited = store.tasks.createOrFind(
          newTask({ id: 'tsk_limited', owner, dedupeKey: 'limited' }),
          { message: 'Queued' },
          async (tx) => {
            const n = await tx.principals.activeTaskCount(owner);
            if (released) counted = n;
            else countedWhileHeld = n;
          },
        );
        // Time for the free lane to have run it (several round trips), had it not waited.
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.equal(countedWhileHeld, undefined, 'not counted while the holder has the owner lock');
        released = true;
        release();
        assert.equal((await holder).created, true);
        assert.equal((await limited).created, true);
        assert.equal(counted, 3, 'counted the holder and both creates without limits');
      });

    test('a create that fails its commit is refused, and the next batch commits', async () => {
      const { store } = await open();
      const taken = newTask({ id: 'tsk_taken' });
      await store.tasks.createOrFind(taken, { message: 'Queued' });
      // The same id again under other work: the insert fails in its savepoint (primary key), alone.
      const clash = store.tasks.createOrFind({ ...taken, dedupeKey: 'different' }, { message: 'Queued' });
      const fine = store.tasks.createOrFind(newTask({ id: 'tsk_fine', dedupeKey: 'fine' }), { message: 'Queued' });
      const [clashed, committed] = await Promise.allSettled([clash, fine]);
      assert.equal(clashed.status, 'rejected');
      assert.equal(committed.status, 'fulfilled');
      assert.equal((await store.tasks.get('tsk_fine'))?.status, 'working');
      assert.equal((await store.tasks.get('tsk_taken'))?.dedupeKey, taken.dedupeKey);
    });
  });
}
