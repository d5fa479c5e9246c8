// The changes stream of a competition (the push extension; routed only when push is on).
import { parseId } from '../validation.ts';
import { requireCompetition } from './competitions.ts';
import type { Route } from './route.ts';

export const changesRoute: Route = {
	re: /^\/api\/v1\/competitions\/([^/]+)\/changes$/,
	async get(ex, { repo, push, params, auth, caller }) {
		const id = parseId('competitionId', params[0] ?? '');
		await requireCompetition(repo, id);
		await push?.open(ex, id, auth.audienceOf(caller));
	}
};
