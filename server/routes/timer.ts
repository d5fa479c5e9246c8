// The timer stream of a ring (the timer bridge; routed only when a timer is configured).
import { notFound } from '../http/errors.ts';
import { parseId } from '../validation.ts';
import { requireCompetition } from './competitions.ts';
import { found, type Route } from './route.ts';

export const timerRoute: Route = {
	re: /^\/api\/v1\/competitions\/([^/]+)\/rings\/([^/]+)\/timer$/,
	async get(ex, { repo, timers, params }) {
		const id = parseId('competitionId', params[0] ?? '');
		const ringId = parseId('ringId', params[1] ?? '');
		await requireCompetition(repo, id);
		found(await repo.ring(id, ringId), `Ring ${ringId} of competition ${id}`);
		if (!timers?.open(ex, ringId)) throw notFound(`Ring ${ringId} has no timer`);
	}
};
