import { getTableColumns, type Table } from 'drizzle-orm';

/**
 * A row a PL/pgSQL function hands back as JSON (`row_to_json`, keyed by column names) read as drizzle reads that
 * table's rows (keyed by field names, each value through its column's decoder), so a function's rows are the
 * store's usual rows. JSON columns come back parsed already and are kept as they are.
 */
export function rowReader<T>(table: Table): (json: Record<string, unknown>) => T {
  const columns = Object.entries(getTableColumns(table)).map(([key, column]) => ({
    key,
    name: column.name,
    decode: column.columnType === 'PgJsonb' ? null : (raw: unknown) => column.mapFromDriverValue(raw) as unknown,
  }));
  return (json) => {
    const out: Record<string, unknown> = {};
    for (const { key, name, decode } of columns) {
      const raw = json[name];
      out[key] = raw === null || raw === undefined ? null : decode ? decode(raw) : raw;
    }
    return out as T;
  };
}
