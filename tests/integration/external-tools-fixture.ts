import type { ExternalTool, ExternalToolSource } from '../../src/agent/tools/external-tool.js';

/** Two tools as an MCP server would offer them: one read-only, one that writes and needs approval. */
export class ExternalToolsFixture {
  readonly calls: { name: string; args: Record<string, unknown> }[] = [];
  readonly source: ExternalToolSource;

  constructor() {
    const tool = (name: string, needsApproval: boolean): ExternalTool => ({
      name,
      description: `test tool ${name}`,
      inputSchema: { type: 'object', properties: { title: { type: 'string' } } },
      needsApproval,
      call: async (args) => {
        this.calls.push({ name, args });
        return { ok: true, content: `${name} done` };
      },
    });
    const tools = [tool('tracker__search', false), tool('tracker__create_issue', true)];
    this.source = { toolsFor: () => tools };
  }
}
