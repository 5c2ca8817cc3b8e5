import { describe, expect, it } from 'vitest';
import { scrubUrl, shownLiteralUrl, shownUrlFromTemplate } from '../../src/settings/shown-url.js';

const env = {
  KEY: 'sk_live_4f9a2c7e',
  PATH_KEY: 'p4th-s3cret-77',
  PASS: 'hunter2-hunter2',
  BASE: 'https://tenant.example.com/t/acme-tenant-9',
  SHORT: 'v1',
};
const shown = (template: string) => shownUrlFromTemplate(template, env).text;

describe('the shown form of an MCP server URL', () => {
  it('drops the query, the fragment and the userinfo, and hides each path segment a ${VAR} filled in', () => {
    expect(shown('https://mcp.example.com/mcp?api_key=${KEY}')).toBe('https://mcp.example.com/mcp');
    expect(shown('https://mcp.example.com/s/${PATH_KEY}/mcp')).toBe('https://mcp.example.com/s/•••/mcp');
    expect(shown('https://errand:${PASS}@mcp.example.com:8443/mcp')).toBe('https://mcp.example.com:8443/mcp');
    expect(shown('https://mcp.example.com/key-${PATH_KEY}/mcp#part')).toBe('https://mcp.example.com/•••/mcp');
    expect(shown('https://mcp.example.com/${SHORT}/mcp')).toBe('https://mcp.example.com/•••/mcp');
    expect(shown('https://mcp.example.com/mcp?key=${MISSING:-fallback-key}')).toBe('https://mcp.example.com/mcp');
  });

  it('hides every segment of a URL a variable gave whole, but keeps its host', () => {
    expect(shown('${BASE}/mcp')).toBe('https://tenant.example.com/•••/•••/mcp');
  });

  it('keeps what the file wrote out: a literal URL loses only its query and userinfo', () => {
    expect(shown('https://mcp.example.com/v2/mcp')).toBe('https://mcp.example.com/v2/mcp');
    expect(shownLiteralUrl('https://bob:pw-literal-9@mcp.example.com/mcp?token=abc-literal-1').text).toBe(
      'https://mcp.example.com/mcp',
    );
  });

  it('scrubs the real URL and its secret parts out of free text', () => {
    const url = shownUrlFromTemplate('https://errand:${PASS}@mcp.example.com/s/${PATH_KEY}/mcp?api_key=${KEY}', env);
    const real = `https://errand:${env.PASS}@mcp.example.com/s/${env.PATH_KEY}/mcp?api_key=${env.KEY}`;
    expect(scrubUrl(`Request cannot be constructed from a URL that includes credentials: ${real}`, url)).toBe(
      'Request cannot be constructed from a URL that includes credentials: https://mcp.example.com/s/•••/mcp',
    );
    expect(scrubUrl(`Error POSTing to endpoint: <pre>Cannot POST /s/${env.PATH_KEY}/mcp</pre>`, url)).toBe(
      'Error POSTing to endpoint: <pre>Cannot POST /s/•••/mcp</pre>',
    );
    expect(scrubUrl(`bad key ${encodeURIComponent(env.KEY)} for ${env.PASS}`, url)).toBe('bad key ••• for •••');
    expect(scrubUrl('HTTP 404 from https://mcp.example.com/other', url)).toBe(
      'HTTP 404 from https://mcp.example.com/other',
    );
  });

  it('a URL without secrets changes no text', () => {
    expect(shownLiteralUrl('http://127.0.0.1:3000/mcp').replacements).toEqual([]);
    expect(scrubUrl('cannot reach http://127.0.0.1:3000/mcp', shownLiteralUrl('http://127.0.0.1:3000/mcp'))).toBe(
      'cannot reach http://127.0.0.1:3000/mcp',
    );
  });
});
