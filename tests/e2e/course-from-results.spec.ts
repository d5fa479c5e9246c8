import { expect, test } from './fixtures';
import { putJson, unrecordedRun } from './support/service-data';

/**
 * The judge sets the standard time from the run's own results (issue 33): on the run's course
 * screen, "Compute the times" from the fastest run with the fewest faults + 15 %, rounded up, as
 * FCI international trials do. The screen shows the value, how it was derived and from which
 * dogs, and follows a result another device records meanwhile; Save sends the course through the
 * outbox, and every result on the screen is recomputed against the new standard time.
 */
test('the standard time from the fastest run + 15 %, live as results come in, saved and sent', async ({
	page,
	handle
}) => {
	test.setTimeout(90_000);
	const { competition, run, dogRuns } = await unrecordedRun(handle.url, 6);
	const [d0, d1, d2, d3, d4, d5] = dogRuns as [
		(typeof dogRuns)[number],
		(typeof dogRuns)[number],
		(typeof dogRuns)[number],
		(typeof dogRuns)[number],
		(typeof dogRuns)[number],
		(typeof dogRuns)[number]
	];
	// Recorded so far: a faster run with a fault, clear runs, one eliminated, one absent.
	for (const [dog, body] of [
		[d0, { time: 31.2, faults: 1 }],
		[d1, { time: 33.1 }],
		[d2, { time: 30, disqualified: true }],
		[d3, { absence: true }],
		[d4, { time: 40.4 }]
	] as const) {
		expect(await putJson(dog._links.self.href, body)).toBe(200);
	}

	await page.goto('/');
	await page.locator(`a[href="/competitions/${competition.id}"]`).first().click();
	await page.locator(`a[href="/runs/${run.id}"]`).first().click();
	await expect(page.getByRole('heading', { name: run.name })).toBeVisible();
	await page.getByRole('button', { name: 'Edit course' }).click();
	await page.getByText('Compute the times').click();
	await page.getByTestId('helper-source').selectOption('fastest');

	// 33.10 s (No. 2, clear) is the reference, not 31.20 s with a fault nor 30.00 eliminated.
	const derivation = page.getByTestId('helper-derivation');
	await expect(derivation).toContainText(
		`Fastest with the fewest faults: No. 2 ${d1.dog.name} 33.10 s + 15 % → 39.00 s`
	);
	await expect(page.getByTestId('helper-counted')).toHaveText(
		`Counted so far: 3 of ${dogRuns.length} dogs (a time, not eliminated, not absent).`
	);
	await expect(page.getByTestId('helper-preview')).toHaveText(
		'Standard time 39.00 s · maximal time 59.00 s'
	);

	// Another device records No. 6, clear and faster: the suggestion follows.
	expect(await putJson(d5._links.self.href, { time: 32 })).toBe(200);
	await expect(derivation).toContainText(`No. 6 ${d5.dog.name} 32.00 s + 15 % → 37.00 s`, {
		timeout: 30_000
	});
	await expect(page.getByTestId('helper-counted')).toContainText('Counted so far: 4 of');

	// The mean of the three: the first three clear runs.
	await page.getByTestId('helper-source').selectOption('meanOfThree');
	await expect(derivation).toContainText(
		`Mean of No. 6 ${d5.dog.name} 32.00 s, No. 2 ${d1.dog.name} 33.10 s, No. 5 ${d4.dog.name} 40.40 s = 35.17 s + 15 % → 41.00 s`
	);
	await page.getByTestId('helper-source').selectOption('fastest');
	await expect(page.getByTestId('helper-preview')).toHaveText(
		'Standard time 37.00 s · maximal time 56.00 s'
	);
	await derivation.scrollIntoViewIfNeeded();
	await page.screenshot({ path: 'test-results/screens/course-from-results.png' });

	await page.getByTestId('helper-fill').click();
	await expect(page.locator('input[name="standardTime"]')).toHaveValue('37.00');
	await expect(page.locator('input[name="maximalTime"]')).toHaveValue('56.00');
	await page.getByRole('button', { name: 'Save course' }).click();
	await expect(page.getByTestId('standard-time')).toHaveText('37.00 s');
	await expect(page.getByTestId('maximal-time')).toHaveText('56.00 s');

	// Recomputed on the screen: No. 5's 40.40 s is now 3.40 over the standard time.
	const row = page.locator(`[data-testid="dog-run"][data-dog-run-id="${d4.id}"]`);
	await expect(row).toContainText('3.40 pts');
	// And sent: the service holds the course.
	await expect
		.poll(
			async () => {
				const answer = await fetch(run._links.self.href);
				const body = (await answer.json()) as { standardTime: number; maximalTime: number };
				return [body.standardTime, body.maximalTime];
			},
			{ timeout: 30_000 }
		)
		.toEqual([37, 56]);
});
