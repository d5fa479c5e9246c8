import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { HalClient } from '$lib/api/hal-client';
import { CompetitionRunSchema } from '$lib/api/schemas';
import { db } from '$lib/db/db';
import { downloadCompetition } from './download';
import { fetchDogRuns } from './browse';
import { useSmallService } from './test-service';

const service = useSmallService('browse');

describe('fetchDogRuns (a screen reading its run again)', () => {
	it('rewrites only the dog runs that changed, and notes the run as read', async () => {
		const client = new HalClient({ serviceUrl: service.url });
		const competition = (await client.listCompetitions({ state: 'IN_PROGRESS' })).items[0]!;
		await downloadCompetition(client, competition._links.self.href);
		const runRow = (await db.runs.where('competitionId').equals(competition.id).first())!;
		const { body: run } = await client.get(runRow.href, CompetitionRunSchema);
		const before = await db.dogRuns.where('runId').equals(run.id).sortBy('order');
		expect(before.length).toBeGreaterThan(2);
		// Another device records a result for the second dog.
		const changed = before[1]!;
		const answer = await fetch(changed.href, {
			method: 'PUT',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({
				time: 41.5,
				faults: 5,
				refusals: 0,
				disqualified: false,
				absence: false
			})
		});
		expect(answer.status).toBe(200);

		let writes = 0;
		const count = () => void writes++;
		db.dogRuns.hook('creating', count);
		db.dogRuns.hook('updating', count);
		try {
			expect(await fetchDogRuns(client, run, competition.id)).toBe(before.length);
			const after = await db.dogRuns.where('runId').equals(run.id).sortBy('order');
			expect(after.map((r) => r.id)).toEqual(before.map((r) => r.id));
			expect(after[1]!.data).toMatchObject({ time: 41.5, faults: 5 });
			// Only the changed dog run was written; the others keep their rows as they were.
			expect(writes).toBe(1);
			expect(after.filter((r, i) => r !== undefined && i !== 1)).toEqual(
				before.filter((_, i) => i !== 1)
			);
			// The run row says when the run was last known current.
			expect((await db.runs.get(run.id))!.fetchedAt).toBeGreaterThanOrEqual(runRow.fetchedAt);
		} finally {
			db.dogRuns.hook('creating').unsubscribe(count);
			db.dogRuns.hook('updating').unsubscribe(count);
		}
	});
});
