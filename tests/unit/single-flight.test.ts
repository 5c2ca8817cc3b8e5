import { describe, expect, it } from 'vitest';
import { singleFlight } from '../../src/chat/single-flight.js';

describe('singleFlight', () => {
  it('runs one flush at a time: kicks during a run are absorbed, the next kick after it starts a new one', async () => {
    let runs = 0;
    let release!: () => void;
    const flight = singleFlight(
      async () => {
        runs++;
        await new Promise<void>((r) => (release = r));
      },
      () => undefined,
    );
    flight.kick();
    flight.kick();
    flight.kick();
    expect(runs).toBe(1);
    release();
    await flight.settled();
    flight.kick();
    expect(runs).toBe(2);
    release();
    await flight.settled();
  });

  it('hands a failure to onError and is ready for the next kick', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const flight = singleFlight(
      async () => {
        calls++;
        if (calls === 1) throw new Error('platform refused');
      },
      (err) => errors.push(err),
    );
    flight.kick();
    await flight.settled();
    expect(errors).toHaveLength(1);
    flight.kick();
    await flight.settled();
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
  });
});
