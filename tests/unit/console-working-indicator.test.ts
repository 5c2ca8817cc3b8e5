import { describe, expect, it } from 'vitest';
import { PLAIN_LOOK } from '../../adapters/console/render.js';
import { createWorkingIndicator } from '../../adapters/console/working-indicator.js';
import { FakeClock } from '../fakes/fake-clock.js';

function indicator(live: boolean) {
  const clock = new FakeClock();
  const shown: (string | null)[] = [];
  const printed: string[] = [];
  const working = createWorkingIndicator({
    clock,
    look: PLAIN_LOOK,
    live,
    show: (s) => void shown.push(s),
    print: (l) => void printed.push(l),
  });
  return { clock, shown, printed, working };
}

describe('the working indicator on a terminal', () => {
  it('updates the status line every second with the elapsed time, then prints the end marker', () => {
    const { clock, shown, printed, working } = indicator(true);
    working.begin('c1');
    expect(shown).toEqual(['… working (0 s) — type stop to stop']);
    clock.advance(1000);
    expect(shown.at(-1)).toBe('… working (1 s) — type stop to stop');
    clock.advance(11_000);
    expect(shown.at(-1)).toBe('… working (12 s) — type stop to stop');
    expect(shown).toHaveLength(13);
    clock.advance(2_500);
    working.end('c1');
    expect(shown.at(-1)).toBeNull();
    expect(printed).toEqual(['── done in 14 s ──']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('says the run waits for an answer when it ended on a question', () => {
    const { clock, printed, working } = indicator(true);
    working.begin('c1');
    clock.advance(8_000);
    working.asked('c1');
    working.end('c1');
    expect(printed).toEqual(['── waiting for your answer (after 8 s) ──']);
  });

  it('keeps one status line for overlapping runs, counting from the oldest, and marks each end', () => {
    const { clock, shown, printed, working } = indicator(true);
    working.begin('session');
    clock.advance(5_000);
    working.begin('scheduled');
    clock.advance(1_000);
    expect(shown.at(-1)).toBe('… working (6 s) — type stop to stop');
    working.end('scheduled');
    expect(printed).toEqual(['── done in 1 s ──']);
    clock.advance(1_000);
    expect(shown.at(-1)).toBe('… working (7 s) — type stop to stop');
    working.end('session');
    expect(printed.at(-1)).toBe('── done in 7 s ──');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('stops ticking when disposed', () => {
    const { clock, working } = indicator(true);
    working.begin('c1');
    working.dispose();
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('the working indicator on a pipe', () => {
  it('prints a plain line when work starts and every ten seconds, never a redraw', () => {
    const { clock, shown, printed, working } = indicator(false);
    working.begin('c1');
    clock.advance(25_000);
    working.end('c1');
    expect(shown).toEqual([]);
    expect(printed).toEqual([
      '… working — type stop to stop',
      '… working (10 s) — type stop to stop',
      '… working (20 s) — type stop to stop',
      '── done in 25 s ──',
    ]);
  });
});
