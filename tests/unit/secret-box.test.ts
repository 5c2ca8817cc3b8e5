import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/secrets/secret-box.js';
import { decodeSecretKey } from '../../src/secrets/secret-key.js';

describe('the secret box', () => {
  const box = createSecretBox(randomBytes(32));

  it('opens what it sealed, in the same context only, and never shows the plain text', () => {
    const sealed = box.seal('gho_secret-token', 'mcp_connections:slack:U1:linear');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('gho_secret-token');
    expect(box.seal('gho_secret-token', 'c')).not.toBe(box.seal('gho_secret-token', 'c'));
    expect(box.open(sealed, 'mcp_connections:slack:U1:linear')).toBe('gho_secret-token');
    expect(box.open(sealed, 'mcp_connections:slack:U2:linear')).toBeNull();
  });

  it('refuses a tampered value and one sealed with another key', () => {
    const sealed = box.seal('token', 'c');
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = body[0]! ^ 1;
    expect(box.open([parts[0], parts[1], parts[2], body.toString('base64url')].join('.'), 'c')).toBeNull();
    expect(createSecretBox(randomBytes(32)).open(sealed, 'c')).toBeNull();
    expect(box.open('garbage', 'c')).toBeNull();
  });

  it('reads the key as hex, base64 or base64url, and the same bytes give the same box', () => {
    const bytes = randomBytes(32);
    for (const text of [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')]) {
      const decoded = decodeSecretKey(text);
      expect(decoded.ok && decoded.key.equals(bytes)).toBe(true);
    }
    const sealed = createSecretBox(bytes).seal('x', 'c');
    expect(createSecretBox(Buffer.from(bytes)).open(sealed, 'c')).toBe('x');
    expect(decodeSecretKey('abc')).toMatchObject({ ok: false });
  });
});
