import { describe, expect, it } from 'vitest';
import { fitPieces } from '../../src/chat/fit-pieces.js';
import { renderPieces as slackPieces } from '../../adapters/slack/message-bodies.js';
import { renderPieces as discordPieces } from '../../adapters/discord/message-bodies.js';
import { markdownToMrkdwn } from '../../adapters/slack/mrkdwn.js';

describe('text rendered and split once, by the adapter', () => {
  it('splits where each piece fits once formatted: escapes and the mention on the first counted, not guessed', () => {
    const text = Array.from({ length: 120 }, (_, i) => `w${i} &&`).join(' ');
    const escaped = (piece: string) => piece.replaceAll('&', '&amp;').length;
    const pieces = fitPieces(text, 200, (piece, first) => (first ? 10 : 0) + escaped(piece));
    expect(pieces.join(' ')).toBe(text);
    pieces.forEach((piece, i) => expect((i === 0 ? 10 : 0) + escaped(piece)).toBeLessThanOrEqual(200));
    expect(fitPieces('plain words', 200, (p) => p.length)).toEqual(['plain words']);
    expect(fitPieces('  ', 200, (p) => p.length)).toEqual([]);
  });

  it("fills Slack's and Discord's messages to their own limits once formatted", () => {
    const text = Array.from({ length: 900 }, (_, i) => `w${i} & <x>`).join(' ');
    const slack = slackPieces(text, 'U0ALICE01');
    expect(slack.every((p, i) => (i === 0 ? 13 : 0) + markdownToMrkdwn(p).length <= 3000)).toBe(true);
    expect(Math.max(...slack.map((p) => markdownToMrkdwn(p).length))).toBeGreaterThan(2900);
    const discord = discordPieces(Array.from({ length: 900 }, (_, i) => `w${i} @here`).join(' '));
    expect(discord.every((p) => p.replaceAll('@here', '@\u200bhere').length <= 2000)).toBe(true);
    expect(Math.max(...discord.map((p) => p.replaceAll('@here', '@\u200bhere').length))).toBeGreaterThan(1900);
  });
});
