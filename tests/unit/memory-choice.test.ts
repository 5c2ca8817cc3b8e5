import { describe, expect, it } from 'vitest';
import { chooseMemories, memoryLineTokens } from '../../src/memory/memory-choice.js';
import type { MemoryRow } from '../../src/memory/memory-store.js';
import { fts5Query, ownerToken, rankByTerms, searchTerms } from '../../src/memory/search-terms.js';

const memory = (id: number, text: string): MemoryRow => ({
  id,
  scope: 'me',
  subject: 'slack:U1',
  text,
  createdBy: 'slack:U1',
  createdAt: id,
});

describe('choosing and ranking memories', () => {
  it('reads a query as plain words: no full-text syntax gets through, common function words are left out unless nothing else is left', () => {
    expect(searchTerms('Who reviews the "payments" release?  NEAR(a b) OR staging* -x')).toEqual([
      'reviews',
      'payments',
      'release',
      'near',
      'b',
      'staging',
      'x',
    ]);
    expect(searchTerms('who is it')).toEqual(['who', 'is', 'it']);
    expect(searchTerms('  …  ')).toEqual([]);
    expect(fts5Query([ownerToken('me', 'slack:U1')], ['payments'])).toBe(
      `owner : ("${Buffer.from('me:slack:U1').toString('hex').toUpperCase()}") AND text : ("payments")`,
    );
  });

  it('ranks memories by the rare words of the query they contain, newest first on a tie', () => {
    const rows = [
      memory(1, 'Payments reviews go to Carl'),
      memory(2, 'The release is on Thursdays'),
      memory(3, 'Ana works on payments'),
      memory(4, 'payments payments'),
    ];
    const ranked = rankByTerms(rows, ['reviews', 'payments']).map((m) => m.id);
    expect(ranked[0]).toBe(1);
    expect(ranked.at(-1)).toBe(2);
    expect(ranked.slice(1, 3)).toEqual([4, 3]);
  });

  it('takes matches first, then the newest, each once, within the token budget, passing over one that does not fit', () => {
    const big = memory(5, 'x'.repeat(400));
    const matched = [memory(2, 'matched fact'), big];
    const newest = [memory(9, 'newest fact'), memory(2, 'matched fact'), memory(1, 'oldest fact')];
    const budget = memoryLineTokens(matched[0]!) + memoryLineTokens(newest[0]!) + memoryLineTokens(newest[2]!);
    expect(chooseMemories(matched, newest, budget).map((m) => m.id)).toEqual([2, 9, 1]);
    expect(chooseMemories(matched, newest, 0)).toEqual([]);
  });
});
