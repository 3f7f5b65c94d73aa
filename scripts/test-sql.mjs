// Plain SQL on a test's store, the same on both stores: for a test that sets up a situation no
// store method makes (a booking changed behind the engine's back) or reads a row as stored. SQL
// with `?` placeholders that both dialects understand; on PostgreSQL run on the store's own pool,
// with bigint (epoch ms, counts) read back as numbers as on SQLite. Tests only: the code under test
// never speaks SQL outside packages/db.
const INT8 = 20;
const pgTypes = (pgTypesParser) => ({
  getTypeParser: (oid, format) => (oid === INT8 ? Number : pgTypesParser.getTypeParser(oid, format)),
});

/** `?` placeholders numbered for PostgreSQL ($1, $2, …). */
const numbered = (text) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

export async function testSql(store) {
  if (store.dialect === 'sqlite') {
    const db = store.connection.sqlite;
    return {
      all: async (text, ...params) => db.prepare(text).all(...params),
      get: async (text, ...params) => db.prepare(text).get(...params),
      value: async (text, ...params) =>
        db
          .prepare(text)
          .pluck()
          .get(...params),
      run: async (text, ...params) => db.prepare(text).run(...params).changes,
      exec: async (text) => void db.exec(text),
    };
  }
  const { default: pg } = await import('pg');
  const types = pgTypes(pg.types);
  const query = async (text, params) => store.pool.query({ text: numbered(text), values: params, types });
  return {
    all: async (text, ...params) => (await query(text, params)).rows,
    get: async (text, ...params) => (await query(text, params)).rows[0],
    value: async (text, ...params) => {
      const row = (await query(text, params)).rows[0];
      return row === undefined ? undefined : Object.values(row)[0];
    },
    run: async (text, ...params) => (await query(text, params)).rowCount ?? 0,
    exec: async (text) => void (await store.pool.query(text)),
  };
}
