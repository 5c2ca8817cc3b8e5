import { describe, expect, it } from 'vitest';
import { toToolResult } from '../../src/mcp/mcp-tool-result.js';
import { contentOf } from '../fixtures/mcp/mcp-test-kit.js';

describe('MCP tool results for the model', () => {
  it('joins text blocks and summarises images, audio, links and embedded resources', () => {
    const result = toToolResult(
      {
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', mimeType: 'image/png', data: Buffer.alloc(12 * 1024).toString('base64') },
          { type: 'audio', mimeType: 'audio/wav', data: Buffer.alloc(100).toString('base64') },
          { type: 'resource_link', uri: 'file:///tmp/report.csv', name: 'report.csv' },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside' } },
          { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA', mimeType: 'application/zip' } },
        ],
      },
      10_000,
    );
    expect(result).toEqual({
      ok: true,
      content:
        'first\n\n[image image/png, 12 KB]\n\n[audio audio/wav, 100 B]\n\n[resource file:///tmp/report.csv]\n\n[resource file:///a.txt]\ninside\n\n[resource file:///b.bin, application/zip]',
    });
  });

  it('passes structuredContent as a value and drops text that only repeats it', () => {
    const structuredContent = { count: 2, names: ['a', 'b'] };
    expect(
      toToolResult(
        { content: [{ type: 'text', text: JSON.stringify(structuredContent, null, 2) }], structuredContent },
        1000,
      ),
    ).toEqual({ ok: true, structured: structuredContent });
    expect(toToolResult({ content: [{ type: 'text', text: 'two names' }], structuredContent }, 1000)).toEqual({
      ok: true,
      content: 'two names',
      structured: structuredContent,
    });
  });

  it('sends text once when structuredContent only repeats it, as { content: <the text> }', () => {
    const text = 'The meeting moved to Thursday at 10:00.';
    expect(toToolResult({ content: [{ type: 'text', text }], structuredContent: { content: text } }, 1000)).toEqual({
      ok: true,
      content: text,
    });
    expect(
      toToolResult(
        { content: [{ type: 'text', text: `${text}\n` }], structuredContent: { result: { summary: text } } },
        1000,
      ),
    ).toEqual({ ok: true, content: `${text}\n` });
  });

  it('sends the structured content alone when the text is its JSON in another layout, or one of its strings', () => {
    const structuredContent = { names: ['a', 'b'], count: 2 };
    const reordered = '{\n  "count": 2,\n  "names": ["a", "b"]\n}';
    expect(toToolResult({ content: [{ type: 'text', text: reordered }], structuredContent }, 1000)).toEqual({
      ok: true,
      structured: structuredContent,
    });
    const withMore = { content: 'Moved to Thursday.', movedBy: 'alice', attendees: 4 };
    expect(
      toToolResult({ content: [{ type: 'text', text: 'Moved to Thursday.' }], structuredContent: withMore }, 1000),
    ).toEqual({ ok: true, structured: withMore });
  });

  it('a text that fits the cap once is not pushed past it by its copy in structuredContent', () => {
    const text = 'y'.repeat(600);
    expect(toToolResult({ content: [{ type: 'text', text }], structuredContent: { content: text } }, 1000)).toEqual({
      ok: true,
      content: text,
    });
  });

  it('cuts a long result to the cap with a note saying how much was left out', () => {
    const result = toToolResult({ content: [{ type: 'text', text: 'x'.repeat(5000) }] }, 1000);
    expect(result.ok).toBe(true);
    const content = contentOf(result);
    expect(content.length).toBeLessThanOrEqual(1000);
    const cut = Number(/\[cut: (\d+) more characters\]$/.exec(content)?.[1]);
    expect(content.indexOf('\n[cut')).toBe(5000 - cut);
  });

  it('folds large structured content into the capped text', () => {
    const structuredContent = { rows: Array.from({ length: 500 }, (_, i) => ({ i })) };
    const result = toToolResult({ content: [], structuredContent }, 300);
    expect(result).toMatchObject({ ok: true });
    expect(result).not.toHaveProperty('structured');
    expect(contentOf(result)).toMatch(/^\{"rows":\[.*\[cut: \d+ more characters\]$/s);
  });

  it('turns isError into { ok: false } with the server text', () => {
    expect(toToolResult({ isError: true, content: [{ type: 'text', text: 'the disk is full' }] }, 1000)).toEqual({
      ok: false,
      error: 'the disk is full',
    });
    expect(toToolResult({ isError: true, content: [] }, 1000)).toEqual({
      ok: false,
      error: 'The tool reported an error without a message.',
    });
  });
});
