import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { limitedStatement } from '../../src/store/sqlite/limited-statement.js';

describe('limitedStatement', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = new Database(':memory:');
    db.exec('create table t (id integer primary key, v text)');
    const insert = db.prepare('insert into t (v) values (?)');
    for (let i = 0; i < 10; i++) insert.run(`v${i}`);
  });
  afterEach(() => db.close());

  it('returns as many rows as each limit asks for, newest first', () => {
    const newest = limitedStatement(db, 'select v from t order by id desc limit {limit}', (s) => s.pluck());
    expect(newest(3).all()).toEqual(['v9', 'v8', 'v7']);
    expect(newest(1).all()).toEqual(['v9']);
    expect(newest(0).all()).toEqual([]);
    expect(newest(2.7).all()).toEqual(['v9', 'v8']);
  });

  it('prepares each limit once and hands back the same statement for it', () => {
    const newest = limitedStatement(db, 'select v from t order by id desc limit {limit}');
    expect(newest(5)).toBe(newest(5));
    expect(newest(5)).not.toBe(newest(6));
    expect(newest(5).source).toBe('select v from t order by id desc limit 5');
  });
});
