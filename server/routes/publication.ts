// What public views show of a competition (an extension: docs/service.md, "Public views"): anyone
// who may read gets the settings (a spectator's phone applies them), the secretary changes them
// with If-Match, and every open stream of the competition hears of the change.
import { commitChange } from '../changes/commit-change.ts';
import {
	publicationChange,
	publicationVersion,
	requirePublication
} from '../changes/publication-change.ts';
import { publicationResource } from '../http/representations.ts';
import { HANDLER_NAMES, RESULTS_MODES } from '../../src/lib/contract/publication.ts';
import { parseId } from '../validation.ts';
import type { Route } from './route.ts';

/** The form of a change (HAL-FORMS `_templates`): a PUT of any of the three settings. */
const PUT_TEMPLATE = {
	default: {
		method: 'PUT',
		contentType: 'application/json',
		properties: [
			{ name: 'handlerNames', options: { inline: [...HANDLER_NAMES] } },
			{ name: 'results', options: { inline: [...RESULTS_MODES] } },
			{ name: 'releasedRuns' }
		]
	}
};

export const publicationRoute: Route = {
	re: /^\/api\/v1\/competitions\/([^/]+)\/publication$/,
	kind: 'publication',
	idName: 'competitionId',
	access: { GET: 'read', PUT: 'secretary' },
	async get(ex, { repo, etags, api, params, auth, caller }) {
		const p = await requirePublication(repo, parseId('competitionId', params[0] ?? ''));
		const value = publicationResource(api, p);
		// HAL-FORMS: the secretary's answer says it may be changed, and how.
		if (auth.actsAsSecretary(caller)) value._templates = PUT_TEMPLATE;
		etags.send(ex, value, publicationVersion(p));
	},
	async put(ex, call) {
		const change = publicationChange(call.api, call.id, () => call.json);
		const current = await change.read(call.repo);
		call.etags.checkIfMatch(ex.req, change.versionOf(current));
		// The event laptop's own state: nothing of it goes to the upstream's outbox.
		await commitChange(ex, { ...call, recordChange: null }, change, current);
	}
};
