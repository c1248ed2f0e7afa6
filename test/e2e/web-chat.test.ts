/**
 * End to end: the web chat demo (examples/web-chat + examples/http-server.ts) in a real
 * headless Chromium driven by playwright-core. Skips with the reason when Chromium is missing.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startWebChatServer, type WebChatServer } from '../../examples/http-server.js';

const chromiumPath = process.env['CORTEXIS_TEST_CHROMIUM'] ?? '/usr/bin/chromium';
const reason = existsSync(chromiumPath)
  ? undefined
  : `${chromiumPath} is missing (install chromium, or set CORTEXIS_TEST_CHROMIUM)`;
if (reason) console.warn(`[skipped] web chat end-to-end test: ${reason}`);

/** Where the screenshot goes (outside the repository). */
const screenshotPath = join(tmpdir(), 'cortexis-web-chat.png');

describe.skipIf(reason !== undefined)(
  `web chat demo in Chromium${reason ? ` [skipped: ${reason}]` : ''}`,
  () => {
    let server: WebChatServer;
    let context: BrowserContext;
    let page: Page;
    let profile: string;
    const pageErrors: string[] = [];

    beforeAll(async () => {
      const { chromium } = await import('playwright-core');
      // A small delay per word keeps the stream observable without slowing the test.
      server = await startWebChatServer({ port: 0, streamDelayMs: 10 });
      profile = await mkdtemp(join(tmpdir(), 'cortexis-chromium-'));
      context = await chromium.launchPersistentContext(profile, {
        executablePath: chromiumPath,
        headless: true,
        viewport: { width: 1280, height: 900 },
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      });
      page = context.pages()[0] ?? (await context.newPage());
      page.setDefaultTimeout(10_000);
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') pageErrors.push(message.text());
      });
    });

    afterAll(async () => {
      await context?.close();
      await server?.close();
      if (profile) await rm(profile, { recursive: true, force: true });
    });

    it('streams a cited answer, highlights the cited source and records feedback', async () => {
      await page.goto(server.url);
      await page.getByRole('heading', { name: 'Conversations' }).waitFor();

      // A new conversation appears in the list, selected, and exists for the demo user.
      await page.getByRole('button', { name: 'New conversation' }).click();
      const current = page.locator('.conversation[aria-current="true"]');
      await current.waitFor();
      expect(await page.locator('.conversation').count()).toBe(1);
      const { sessions } = await server.engine.listSessions({ userId: 'demo' });
      expect(sessions).toHaveLength(1);
      const sessionId = sessions[0]!.id;

      // Record the answer's length at every DOM change while it streams.
      await page.evaluate(() => {
        const lengths: number[] = [];
        (window as unknown as { answerLengths: number[] }).answerLengths = lengths;
        new MutationObserver(() => {
          const message = document.querySelector('.message.assistant:last-child');
          const answer = message?.querySelector('.answer');
          if (message instanceof HTMLElement && message.dataset.state === 'streaming' && answer) {
            lengths.push(answer.textContent?.length ?? 0);
          }
        }).observe(document.querySelector('#messages')!, {
          childList: true,
          characterData: true,
          subtree: true,
        });
      });

      await page.getByLabel('Your question').fill('What does guard mode do?');
      await page.getByRole('button', { name: 'Send' }).click();

      const answer = page.locator('.message.assistant').last();
      // While streaming, the answer is a busy live region.
      await answer.locator('.answer[aria-live="polite"]').waitFor();
      await page.locator('.message.assistant[data-state="done"]').waitFor();

      // Streamed: many text-delta events, and the page showed the text growing.
      const deltas = Number(await answer.locator('.answer').getAttribute('data-deltas'));
      expect(deltas).toBeGreaterThanOrEqual(2);
      const lengths = await page.evaluate(
        () => (window as unknown as { answerLengths: number[] }).answerLengths,
      );
      const finalText = (await answer.locator('.answer').textContent()) ?? '';
      const partial = new Set(lengths.filter((length) => length > 0 && length < finalText.length));
      expect(partial.size).toBeGreaterThanOrEqual(2);
      expect(await answer.locator('.answer').getAttribute('aria-busy')).toBe('false');
      expect(finalText).toMatch(/guard mode/i);

      // Sources with titles and snippets.
      const sources = answer.locator('.source');
      expect(await sources.count()).toBeGreaterThanOrEqual(1);
      expect((await sources.first().locator('.source-title').textContent())?.trim()).toBeTruthy();
      expect(
        (await sources.first().locator('.source-snippet').textContent())?.trim().length,
      ).toBeGreaterThan(20);

      // A citation is a button; clicking it highlights, scrolls to and focuses its source.
      const citation = answer.locator('.answer .citation').first();
      expect(await citation.getAttribute('aria-label')).toMatch(/^Show source S\d+/);
      const target = await citation.getAttribute('aria-controls');
      await citation.click();
      const cited = page.locator(`[id="${target}"]`);
      await expect.poll(() => cited.getAttribute('class')).toContain('highlighted');
      expect(await page.locator('.source.highlighted').count()).toBe(1);
      expect(await cited.evaluate((element) => element === document.activeElement)).toBe(true);
      await expect
        .poll(() =>
          cited.evaluate((element) => {
            const box = element.getBoundingClientRect();
            return box.top >= 0 && box.bottom <= window.innerHeight;
          }),
        )
        .toBe(true);

      // The confidence badge shows the level and the score.
      const badge = answer.locator('.badge');
      expect(await badge.textContent()).toMatch(/^(High|Medium|Low) confidence\s*\d\.\d\d$/);
      const score = Number(await badge.getAttribute('data-score'));
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThanOrEqual(1);

      // Thumbs up: the page says it was recorded, and the engine has it.
      const thumbsUp = answer.getByRole('button', { name: /thumbs up/i });
      await thumbsUp.click();
      await answer.locator('.feedback-status.recorded').waitFor();
      expect(await answer.locator('.feedback-status').textContent()).toMatch(/feedback recorded/i);
      expect(await thumbsUp.getAttribute('aria-pressed')).toBe('true');
      const history = await server.engine.history({
        sessionId,
        userId: 'demo',
        includeFeedback: true,
      });
      const stored = history.messages.find((message) => message.role === 'assistant');
      expect(history.feedback).toHaveLength(1);
      expect(history.feedback?.[0]).toMatchObject({ messageId: stored?.id, rating: 'good' });

      await page.screenshot({ path: screenshotPath, fullPage: true });
      console.log(`web chat screenshot: ${screenshotPath}`);

      // After a reload the conversation's history is loaded from the list.
      await page.reload();
      await page.locator('.conversation').first().click();
      const reloaded = page.locator('.message.assistant').last();
      await reloaded.locator('.source').first().waitFor();
      expect(await reloaded.locator('.answer').textContent()).toBe(finalText);
      expect(await page.locator('.message.user .bubble').textContent()).toBe(
        'What does guard mode do?',
      );
      expect(await page.locator('.conversation-meta').first().textContent()).toMatch(/2 messages/);
      // The earlier rating comes back with the history (includeFeedback).
      expect(await reloaded.getAttribute('data-feedback')).toBe('good');
      expect(await reloaded.locator('.thumb-up').getAttribute('aria-pressed')).toBe('true');

      expect(pageErrors).toEqual([]);
    });
  },
);
