import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { filterServerTools, toolNeedsApproval } from '../../src/mcp/mcp-tool-filter.js';
import { exponentialBackoff } from '../../src/mcp/restart-backoff.js';

const tool = (name: string, readOnlyHint?: boolean): Tool => ({
  name,
  inputSchema: { type: 'object' },
  ...(readOnlyHint === undefined ? {} : { annotations: { readOnlyHint } }),
});
const tools = [tool('read'), tool('write'), tool('delete')];

describe('MCP tool filter and approval', () => {
  it('offers only the allowlist when "tools" is given, minus "disabledTools"', () => {
    expect(
      filterServerTools(tools, { tools: ['read', 'write'], disabledTools: ['write'] }).tools.map((t) => t.name),
    ).toEqual(['read']);
    expect(filterServerTools(tools, { disabledTools: ['delete'] }).tools.map((t) => t.name)).toEqual(['read', 'write']);
    expect(filterServerTools(tools, {}).tools).toHaveLength(3);
  });

  it('reports listed names the server does not have', () => {
    expect(filterServerTools(tools, { tools: ['read', 'reed'], disabledTools: ['nuke'] }).unknownNames).toEqual([
      'reed',
      'nuke',
    ]);
  });

  it('asks before unannotated tools under "auto", always under "always", never under "never"', () => {
    expect(toolNeedsApproval('auto', tool('x', true))).toBe(false);
    expect(toolNeedsApproval('auto', tool('x', false))).toBe(true);
    expect(toolNeedsApproval('auto', tool('x'))).toBe(true);
    expect(toolNeedsApproval('always', tool('x', true))).toBe(true);
    expect(toolNeedsApproval('never', tool('x'))).toBe(false);
  });

  it('backs off restarts exponentially up to a cap', () => {
    const backoff = exponentialBackoff(1000, 60_000);
    expect([0, 1, 2, 3, 6, 7, 100].map(backoff)).toEqual([1000, 2000, 4000, 8000, 60_000, 60_000, 60_000]);
  });
});
