import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeGroup } from '../../src/store/sqlite/write-group.js';

describe('writeGroup', () => {
  let db: Database.Database;
  const values = () => db.prepare('select v from t order by v').pluck().all();
  beforeEach(() => {
    db = new Database(':memory:');
    db.exec('create table t (v integer)');
  });
  afterEach(() => db.close());

  it('on its own, keeps all of a group or none of it', () => {
    const atomic = writeGroup(db);
    const insert = db.prepare('insert into t (v) values (?)');
    atomic(() => {
      insert.run(1);
      insert.run(2);
    });
    expect(() =>
      atomic(() => {
        insert.run(3);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(values()).toEqual([1, 2]);
    expect(db.inTransaction).toBe(false);
  });

  it('inside an open transaction, joins it without a savepoint: the enclosing transaction decides for the group', () => {
    const atomic = writeGroup(db);
    const insert = db.prepare('insert into t (v) values (?)');
    db.exec('BEGIN IMMEDIATE');
    expect(atomic(() => (insert.run(7), 'done'))).toBe('done');
    // No savepoint: a group that throws inside a transaction leaves its writes to the enclosing
    // transaction, whose rollback (the gate's, when the error reaches it) undoes them.
    expect(() =>
      atomic(() => {
        insert.run(8);
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(db.inTransaction).toBe(true);
    expect(values()).toEqual([7, 8]);
    db.exec('ROLLBACK');
    expect(values()).toEqual([]);
  });
});
