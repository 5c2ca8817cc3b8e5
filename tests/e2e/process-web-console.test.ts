import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretHash } from '../../src/admin/admin-tokens.js';
import { waitFor } from '../fakes/wait-for.js';
import {
  ADMIN,
  ALICE,
  CONFIGURED_SECRETS,
  startConsoleKit,
  startLongRun,
  type ConsoleKit,
} from './kits/web-console-kit.js';

/*
 * The web console in a real browser: Debian's Chromium (/usr/bin/chromium, installed by .ci/run) driven by
 * playwright-core, against Errand with the console on a free port. One browser for the whole file.
 */

const ARTIFACTS = join(import.meta.dirname, '../artifacts/web-console');
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let kit: ConsoleKit;
let browser: BrowserContext;
let page: Page;
let profile: string;
/** Every HTML the browser was served, for the secrets check. */
const served: { url: string; html: string }[] = [];

const linkIn = (text: string) => /https?:\/\/\S+\/admin\/sign-in\/[A-Za-z0-9_-]+/.exec(text)?.[0] ?? '';

/** axe-core's serious and critical findings on the page as it stands (the CSP is bypassed only to inject axe). */
async function seriousViolations(p: Page): Promise<string[]> {
  await p.addScriptTag({ content: AXE });
  const found = await p.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(
            ctx: unknown,
            o: unknown,
          ): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown }[] }[] }>;
        };
      }
    ).axe;
    const r = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      where: JSON.stringify(v.nodes.slice(0, 2).map((n) => n.target)),
    }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} at ${v.where}`);
}

/** Opens a console page, checks it, keeps its screenshot and its HTML. */
async function read(path: string, heading: string, shot: string): Promise<void> {
  const response = await page.goto(`${kit.baseUrl}${path}`);
  expect(response?.status(), path).toBe(200);
  await expect.poll(() => page.locator('h1').textContent()).toContain(heading);
  served.push({ url: path, html: await page.content() });
  expect(await seriousViolations(page), `axe on ${path}`).toEqual([]);
  await page.screenshot({ path: join(ARTIFACTS, `${shot}.png`), fullPage: true });
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  kit = await startConsoleKit();
  profile = mkdtempSync(join(tmpdir(), 'errand-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 900 },
    bypassCSP: true,
  });
  browser.on('response', (r) => {
    if ((r.headers()['content-type'] ?? '').startsWith('text/html'))
      void r.text().then(
        (html) => served.push({ url: r.url(), html }),
        () => undefined,
      );
  });
  page = await browser.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await kit?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

describe('the web console in a browser', () => {
  it('signs an admin in through the /admin link, and shows every page readable, accessible and without a secret', async () => {
    expect(await kit.admin(ALICE)).toMatch(/Only admins/);
    const reply = await kit.admin();
    expect(reply).toMatch(/works once, for 10 minutes/);
    expect(reply).toMatch(/PUBLIC_URL is not set/);
    await startLongRun(kit, 'Research the outage of <i>yesterday</i>');

    await page.goto(linkIn(reply));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${kit.baseUrl}/admin`);
    const cookie = (await browser.cookies()).find((c) => c.name === 'errand_console');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookie!.expires - Date.now() / 1000).toBeGreaterThan(11.9 * 3600);

    await read('/admin', 'Overview', '01-overview');
    await expect.poll(() => page.getByText('runs running now').locator('..').textContent()).toContain('1');
    // The sandbox's state, as the process found it at start-up (CI installs bubblewrap).
    expect(await page.getByText(/^Sandbox:/).textContent()).toMatch(/available \(bubblewrap\): python/);
    await read('/admin/runs', 'Runs', '02-runs');
    await page
      .getByRole('link', { name: /Research the outage/ })
      .first()
      .click();
    await expect.poll(() => page.locator('h1').textContent()).toContain('Research the outage of <i>yesterday</i>');
    await expect.poll(() => page.locator('#timeline ~ ol').textContent()).toContain('send_update');
    served.push({ url: page.url(), html: await page.content() });
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, '03-run.png'), fullPage: true });
    await read('/admin/schedules', 'Schedules', '04-schedules');
    expect(await page.locator('td', { hasText: 'Summarise yesterday' }).textContent()).toContain(
      '<script>alert("x")</script>',
    );
    await read('/admin/schedules/1/edit', 'Edit schedule #1', '05-schedule-edit');
    await read('/admin/todos', 'To-dos', '06-todos');
    await read('/admin/usage', 'Usage', '07-usage');
    expect(await page.locator('svg.chart').count()).toBeGreaterThanOrEqual(8);
    await read('/admin/connections', 'Connections', '08-connections');
    expect(await page.locator('td', { hasText: 'alice@example.com' }).count()).toBe(1);
    await read('/admin/memories', 'Memories', '09-memories');
    expect(await page.locator('td', { hasText: 'Deploys happen on Fridays <b>after lunch</b>' }).count()).toBe(1);
    await read('/admin/audit', 'Audit log', '10-audit');
    await read('/admin/audit/check', 'Audit chain check', '11-audit-check');
    expect(await page.locator('[role=status]').textContent()).toContain('The chain is intact');

    const secrets = [...Object.values(CONFIGURED_SECRETS), cookie!.value, linkIn(reply).split('/').at(-1)!];
    for (const { url, html } of served)
      for (const s of secrets) expect(html.includes(s), `${s.slice(0, 12)}… in ${url}`).toBe(false);
    expect(served.length).toBeGreaterThan(10);
  }, 120_000);

  it('follows a new run live on the Runs page, and Stop on its page stops it', async () => {
    await page.goto(`${kit.baseUrl}/admin/runs`);
    await page.locator('#runs-live').waitFor();
    const hanging = kit.model.hanging();
    const conversationId = await startLongRun(kit, 'Watch the deploy of build 4711', 'C0DEPLOYS1');
    expect(kit.model.hanging()).toBe(hanging + 1);
    const row = page.getByRole('link', { name: /Watch the deploy of build 4711/ });
    await row.first().waitFor({ timeout: 10_000 });

    await row.first().click();
    await page.getByRole('button', { name: 'Stop this run' }).click();
    await expect.poll(() => page.locator('[role=status]').first().textContent()).toContain('Stopped.');
    const run = await kit.app.runs.active(conversationId);
    expect(run).toBeNull();
    await waitFor(() => kit.adapter.posts.some((p) => p.text.includes('⏹️ Stopped')));
    await expect.poll(() => page.locator('.status').first().textContent()).toContain('cancelled');
  }, 60_000);

  it('pauses a schedule from the Schedules page, through the same path as the buttons, into the audit log', async () => {
    await page.goto(`${kit.baseUrl}/admin/schedules`);
    await page.getByRole('button', { name: 'Pause schedule #1' }).click();
    await expect.poll(() => page.locator('[role=status]').textContent()).toContain('Paused schedule #1');
    expect((await kit.app.store.schedules.get(1))?.status).toBe('paused');
    await page.goto(`${kit.baseUrl}/admin/audit?kind=change`);
    expect(await page.locator('tbody').textContent()).toContain('pause schedule #1');
  }, 60_000);

  it('refuses a change without the CSRF token or without a session, and a used or expired link', async () => {
    const cookies = await browser.cookies();
    const session = cookies.find((c) => c.name === 'errand_console')!.value;
    const post = (path: string, body: string, withCookie: boolean) =>
      fetch(`${kit.baseUrl}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(withCookie ? { cookie: `errand_console=${session}` } : {}),
        },
        body,
      });
    expect((await post('/admin/schedules/1/delete', '', true)).status).toBe(403);
    expect((await post('/admin/schedules/1/delete', 'csrf=not-the-token', true)).status).toBe(403);
    const csrf = await page
      .goto(`${kit.baseUrl}/admin/schedules`)
      .then(() => page.locator('input[name=csrf]').first().getAttribute('value'));
    expect((await post('/admin/schedules/1/delete', `csrf=${csrf}`, false)).status).toBe(401);
    expect(await kit.app.store.schedules.get(1)).not.toBeNull();

    const reply = await kit.admin();
    const link = linkIn(reply);
    expect((await fetch(link, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    const again = await fetch(link, { method: 'POST', redirect: 'manual' });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('already used');
    const stale = 'a'.repeat(43);
    const now = Date.now();
    await kit.app.store.admin.addLink(
      secretHash(stale),
      { person: `slack:${ADMIN}`, roles: null },
      now - 1,
      now - 10 * 60_000,
    );
    const expired = await fetch(`${kit.baseUrl}/admin/sign-in/${stale}`, { method: 'POST', redirect: 'manual' });
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain('expired');
  }, 60_000);
});
