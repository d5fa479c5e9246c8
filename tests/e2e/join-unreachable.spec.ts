import { mkdirSync } from 'node:fs';
import { expect, ServiceHandle, test } from './fixtures';

/**
 * The join page notices a phone that cannot reach the ring laptop (issue 30): on the event's
 * Wi-Fi with no internet, Android sends everything over mobile data, where the laptop's address
 * goes nowhere; a Private DNS provider cannot resolve its name. The page was loaded (or kept by the
 * worker), its requests to the service get no answer. It says so and what to do, checks again by
 * itself, keeps the link unspent, and joins once the laptop answers.
 */
test('a phone that cannot reach the laptop is told what to do, and joins once it can', async ({
	browser
}) => {
	test.setTimeout(90_000);
	mkdirSync('test-results/screens', { recursive: true });
	const handle = await new ServiceHandle({ auth: 'required' }).start();
	const context = await browser.newContext({
		baseURL: handle.url,
		serviceWorkers: 'allow',
		viewport: { width: 360, height: 640 },
		isMobile: true,
		hasTouch: true
	});
	try {
		const page = await context.newPage();
		const link = handle.service.createJoinLink({ role: 'steward', uses: 1 });
		// The phone's requests to the service go nowhere (a route over mobile data): the page
		// itself came before the switch.
		const cut = () => context.route(/\/api\//, (route) => route.abort('addressunreachable'));
		await cut();
		await page.goto(`/join#t=${link.token}`);

		const box = page.getByTestId('join-unreachable');
		await expect(box).toContainText('This phone cannot reach the ring laptop');
		await expect(box).toContainText(`Nothing answers at ${new URL(handle.url).host}`);
		await expect(box).toContainText('Stay connected');
		await expect(box).toContainText('Private DNS');
		await expect(box).toContainText('Wi-Fi Assist');
		await expect(page.getByTestId('join')).toBeDisabled();
		await page.screenshot({ path: 'test-results/screens/join-unreachable.png', fullPage: true });

		// Tried again while still cut: still said, nothing else.
		await page.getByTestId('join-retry').click();
		await expect(box).toBeVisible();
		await expect(page.getByTestId('join')).toBeDisabled();

		// The phone keeps to the Wi-Fi: one tap on Try again, and the page says to join.
		await context.unrouteAll({ behavior: 'ignoreErrors' });
		await page.getByTestId('join-retry').click();
		await expect(page.getByTestId('join-reached')).toHaveText('The ring laptop answers: join now.');
		await expect(box).toBeHidden();

		// It switches again before the tap on Join: the join gets no answer. Said as the same
		// problem (not as a bad link), and the link is not spent.
		await cut();
		await page.getByTestId('device-name').fill('Ring 2 – Jana');
		await page.getByTestId('join').click();
		await expect(box).toBeVisible();
		await expect(page.getByTestId('join-error')).toHaveCount(0);
		expect(page.url()).toContain(`#t=${link.token}`);

		// Back on the Wi-Fi: the page notices by itself (no tap), and the join goes through.
		await context.unrouteAll({ behavior: 'ignoreErrors' });
		await expect(page.getByTestId('join-reached')).toBeVisible({ timeout: 15_000 });
		await page.getByTestId('join').click();
		await expect(page.getByTestId('joined')).toContainText('Ring 2 – Jana');
		expect(page.url()).not.toContain('#t=');
		const devices = handle.service.db?.prepare('SELECT name FROM device').all() as {
			name: string;
		}[];
		expect(devices.map((d) => d.name)).toContain('Ring 2 – Jana');
	} finally {
		await context.close();
		await handle.stop();
	}
});
