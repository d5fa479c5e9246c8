// Check-in at the gate (an extension: docs/service.md, "Check-in"): a competition's marks, one
// dog run's, and the PUT of a gate phone's mark, which is stored where it is the latest (two gate
// phones that marked offline merge to one answer in any order) with its PUT-log row and its
// change for the open streams, in one transaction.
import { checkMarkBody } from '../../src/lib/contract/check-in.ts';
import { requireDogRun } from '../changes/dog-run-change.ts';
import { requireRun } from '../changes/run-change.ts';
import { badRequest } from '../http/errors.ts';
import { stringifyHal } from '../http/hal.ts';
import { checkInResource, checkInsResource } from '../http/representations.ts';
import { checkInOf, checkInsOf, markCheckIn } from '../store/check-in-table.ts';
import { parseId } from '../validation.ts';
import { requireCompetition } from './competitions.ts';
import type { Route } from './route.ts';

export const checkInRoutes: Route[] = [
	{
		re: /^\/api\/v1\/competitions\/([^/]+)\/checkIns$/,
		async get(ex, { repo, etags, api, params }) {
			const cid = parseId('competitionId', params[0] ?? '');
			await requireCompetition(repo, cid);
			etags.send(ex, checkInsResource(api, cid, await checkInsOf(repo.sql, cid)));
		}
	},
	{
		re: /^\/api\/v1\/dogRuns\/([^/]+)\/checkIn$/,
		kind: 'checkIn',
		access: { GET: 'read', PUT: 'write' },
		async get(ex, { repo, etags, api, params }) {
			const d = await requireDogRun(repo, parseId('runId', params[0] ?? ''));
			const run = await requireRun(repo, d.competition_run_id);
			etags.send(
				ex,
				checkInResource(api, d.id, run.competition_id, await checkInOf(repo.sql, d.id))
			);
		},
		async put(ex, call) {
			const { repo, auth, caller, store, write, etags, api, id, json, logApplied } = call;
			const d = await requireDogRun(repo, id);
			const run = await requireRun(repo, d.competition_run_id);
			// A steward marks the dogs of its rings only, as it records their results.
			await auth.checkRing(
				caller,
				async () => ({ id: run.ring_id, name: run.ring_name }),
				async (ringId) => (await repo.ringLabel(ringId)) ?? `ring ${ringId}`
			);
			const checked = checkMarkBody(json, new Date());
			if (!checked.ok) throw badRequest(checked.message);
			const { mark } = checked;
			const cid = run.competition_id;
			const done = await write(async (sql) => {
				const won = await markCheckIn(sql, id, cid, mark, caller.device?.name ?? null);
				// Claimed only for a mark that changed something: what is read next includes every
				// change committed before it.
				const seq = won ? await store.feed.claim(sql) : null;
				const value = checkInResource(api, id, cid, await checkInOf(sql, id));
				const summary = won
					? `marked dog run ${id} ${mark.status ?? 'unmarked'} at ${mark.markedAt}`
					: `kept the later mark of dog run ${id}`;
				if (seq !== null) {
					await store.feed.record(sql, seq, {
						competitionId: cid,
						event: 'checkIn',
						template: stringifyHal(value)
					});
				}
				await logApplied(sql, summary);
				return { value, summary };
			});
			etags.send(ex, done.value);
			ex.summary = done.summary;
		}
	}
];
