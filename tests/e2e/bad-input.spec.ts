import type { IncomingMessage } from 'node:http';
import { expect, test } from './fixtures';
import { startFaultProxy, upstreamAnswer, type CannedAnswer } from './support/fault-proxy';
import {
	getJson,
	makeAvailableOffline,
	record,
	unrecordedRun,
	type DogRunJson
} from './support/service-data';

type Bad = (target: string, req: IncomingMessage) => Promise<CannedAnswer>;

const json = (text: string): CannedAnswer => ({
	status: 200,
	headers: { 'Content-Type': 'application/prs.hal-forms+json' },
	body: text
});

/** What a misbehaving service, proxy or captive portal answers, and what the steward is told. */
const CASES: { name: string; bad: Bad; message: RegExp; timeout?: number }[] = [
	{
		name: 'an HTML page instead of JSON',
		bad: async () => ({
			status: 200,
			headers: { 'Content-Type': 'text/html' },
			body: '<html><body>Please log in to the Wi-Fi</body></html>'
		}),
		message: /not results data \(a web page\?\)/
	},
	{
		name: 'truncated JSON',
		bad: async (target, req) => {
			const real = await upstreamAnswer(target, req);
			return json(real.text.slice(0, Math.floor(real.text.length / 2)));
		},
		message: /incomplete or damaged answer/
	},
	{
		name: 'a wrong type in a field',
		bad: async (target, req) => {
			const real = await upstreamAnswer(target, req);
			return json(real.text.replace(/"id":(\d+)/, '"id":"$1"'));
		},
		message: /data Ringside does not understand/
	},
	{
		name: 'a missing self link',
		bad: async (target, req) => {
			const real = JSON.parse((await upstreamAnswer(target, req)).text) as {
				_links: Record<string, unknown>;
			};
			delete real._links.self;
			return json(JSON.stringify(real));
		},
		message: /missing a link Ringside needs/
	},
	{
		name: 'a list without its page object',
		bad: async (target, req) => {
			const real = JSON.parse((await upstreamAnswer(target, req)).text) as { page?: unknown };
			delete real.page;
			return json(JSON.stringify(real));
		},
		message: /data Ringside does not understand|missing a link/
	},
	{
		name: 'a 500 with a body that is not JSON',
		bad: async () => ({
			status: 500,
			headers: { 'Content-Type': 'text/plain' },
			body: 'Internal Server Error'
		}),
		message: /answered with an error \(500\)/
	},
	{
		name: 'a redirect to another origin',
		bad: async () => ({
			status: 302,
			headers: { Location: 'http://127.0.0.1:9/elsewhere' },
			body: ''
		}),
		message: /sent Ringside to another address \(a Wi-Fi login page\?\); Ringside did not follow/
	},
	{
		name: 'an answer slower than the time-out',
		bad: async (target, req) => {
			await new Promise((resolve) => setTimeout(resolve, 16_000));
			const real = await upstreamAnswer(target, req);
			return {
				status: real.status,
				headers: { 'Content-Type': real.contentType },
				body: real.text
			};
		},
		message: /did not answer in time/,
		timeout: 120_000
	}
];

for (const c of CASES) {
	test(`${c.name}: a clear message, the stored copy and the outbox kept, replay resumes`, async ({
		browser,
		handle
	}) => {
		if (c.timeout) test.setTimeout(c.timeout);
		const { competition, run, dogRuns } = await unrecordedRun(handle.url);
		let misbehave = false;
		const proxy = await startFaultProxy(handle.url, (req) =>
			misbehave && req.url?.startsWith('/api/') ? c.bad(handle.url, req) : null
		);
		const context = await browser.newContext({ baseURL: proxy.url });
		try {
			const page = await context.newPage();
			await page.goto('/');
			await makeAvailableOffline(page, competition.name);

			misbehave = true;
			// A refresh fails with words a steward understands, and the copy stays.
			const card = page.getByTestId('competition').filter({ hasText: competition.name });
			await card.getByRole('button', { name: 'Refresh' }).click();
			await expect(card.getByTestId('download-error')).toHaveText(c.message, {
				timeout: 30_000
			});
			await expect(card.getByTestId('offline-badge')).toBeVisible();
			await page.goto(`/runs/${run.id}`);
			await expect(page.getByText(`${dogRuns.length} dog runs`)).toBeVisible();

			// An edit made now stays on the device, whatever the service answers.
			const target = dogRuns[0]!;
			await record(page, target.id, { time: '47,11', faults: 1 });
			// From the capture screen the bar's count leads to the Sync screen and its "Sync now".
			await page.getByTestId('sync-bar').click();
			await page.getByRole('button', { name: 'Sync now' }).click();
			// Not lost: still in the outbox, or (when only lists misbehave) already delivered.
			await expect(async () => {
				const delivered = (await getJson<DogRunJson>(target._links.self.href)).time === 47.11;
				const kept = await page.getByTestId('sync-entry').count();
				expect(delivered || kept === 1).toBe(true);
			}).toPass({ timeout: 10_000 });

			// The service behaves again: the edit arrives, once, with its values.
			misbehave = false;
			await expect(async () => {
				await page.getByRole('button', { name: 'Sync now' }).click();
				await expect(page.getByTestId('sync-empty')).toBeVisible({ timeout: 2_000 });
			}).toPass({ timeout: 40_000 });
			expect(await getJson<DogRunJson>(target._links.self.href)).toMatchObject({
				time: 47.11,
				faults: 1
			});
			const accepted = handle
				.putLog()
				.filter((p) => p.resourceId === target.id && p.status === 200);
			expect(accepted).toHaveLength(1);
		} finally {
			await context.close();
			await proxy.close();
		}
	});
}
