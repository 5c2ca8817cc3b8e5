import { describe, expect, it } from 'vitest';
import { qualifiedToolName } from '../../src/mcp/mcp-tool-names.js';

describe('MCP tool names', () => {
  it('joins server and tool with "__" and replaces characters outside [A-Za-z0-9_-]', () => {
    expect(qualifiedToolName('github', 'search_issues')).toBe('github__search_issues');
    expect(qualifiedToolName('my.docs', 'read file/v2')).toBe('my_docs__read_file_v2');
  });

  it('cuts long names to 64 characters, deterministically and keeping names that differ only at the end apart', () => {
    const long = 'a'.repeat(70);
    const one = qualifiedToolName('server', `${long}_one`);
    const two = qualifiedToolName('server', `${long}_two`);
    expect(one).toHaveLength(64);
    expect(two).toHaveLength(64);
    expect(one).not.toBe(two);
    expect(qualifiedToolName('server', `${long}_one`)).toBe(one);
    expect(one).toMatch(/^server__a+_[0-9a-f]{8}$/);
  });

  it('leaves a name of exactly 64 characters alone', () => {
    const tool = 'b'.repeat(64 - 'srv__'.length);
    expect(qualifiedToolName('srv', tool)).toBe(`srv__${tool}`);
  });
});
