// Mirror mode's resource for the secretary (not part of the Competition Results interface; the
// app finds it by the `upstream` link of the device list): what waits to be published upstream,
// what the upstream refused with its message, the conflicts with both values, and the decisions
// (Keep ours / Keep theirs, Send again). docs/service.md, "Mirror mode".
import { badRequest, HttpError } from '../http/errors.ts';
import type { Choice, Mirror, MirrorStatus } from '../mirror/mirror.ts';
import type { MirrorEntry } from '../mirror/outbox.ts';
import type { Repository } from '../store/repository.ts';
import { sendResource } from './devices.ts';
import type { Route } from './route.ts';

const CHOICES: readonly Choice[] = ['ours', 'theirs'];

/** `dogRun:12` as a path segment, and back. */
const segmentOf = (key: string): string => key.replace(':', '-');

/** What a secretary recognises the entry's resource by. */
async function labelOf(repo: Repository, e: MirrorEntry): Promise<Record<string, unknown>> {
	const run = await repo.run(e.runId);
	if (e.kind === 'run') return { runName: run?.name ?? null, ringName: run?.ring_name ?? null };
	const d = await repo.dogRun(e.resourceId);
	return {
		runName: run?.name ?? null,
		ringName: run?.ring_name ?? null,
		dogName: d?.dog_name ?? null,
		handler: d ? `${d.firstname} ${d.lastname}` : null
	};
}

async function statusResource(
	api: string,
	repo: Repository,
	s: MirrorStatus
): Promise<Record<string, unknown>> {
	const { entries, ...rest } = s;
	const shown = [];
	for (const e of entries) {
		const self = `${api}/upstream/entries/${segmentOf(e.key)}`;
		shown.push({
			key: e.key,
			kind: e.kind,
			resourceId: e.resourceId,
			runId: e.runId,
			competitionId: e.competitionId,
			status: e.status,
			changes: e.changes,
			base: e.base,
			conflicts: e.conflicts,
			lastError: e.lastError,
			attempts: e.attempts,
			createdAt: new Date(e.createdAt).toISOString(),
			nextAttemptAt: new Date(e.nextAttemptAt).toISOString(),
			...(await labelOf(repo, e)),
			_links: {
				self: { href: self },
				...(e.status === 'conflict' ? { resolve: { href: `${self}/resolve` } } : {}),
				...(e.status === 'failed' ? { retry: { href: `${self}/retry` } } : {})
			}
		});
	}
	return {
		...rest,
		...(shown.length > 0 ? { _embedded: { entries: shown } } : {}),
		_links: { self: { href: `${api}/upstream` } }
	};
}

/** The routes of the mirror's status and decisions, for `mirror`. */
export function mirrorRoutes(mirror: Mirror): Route[] {
	const keyOf = (params: string[]): string => `${params[0]}:${params[1]}`;
	return [
		{
			re: /^\/api\/v1\/upstream$/,
			access: { GET: 'secretary' },
			async get(ex, { repo, api }) {
				sendResource(ex, 200, await statusResource(api, repo, await mirror.status()));
			}
		},
		{
			re: /^\/api\/v1\/upstream\/entries\/(dogRun|run)-(\d+)\/resolve$/,
			async post(ex, { json, repo, api, params }) {
				const choice = json.choice;
				const fields = json.fields;
				let picked: Choice | Record<string, Choice>;
				if (typeof choice === 'string' && CHOICES.includes(choice as Choice)) {
					picked = choice as Choice;
				} else if (fields && typeof fields === 'object' && !Array.isArray(fields)) {
					picked = {};
					for (const [f, c] of Object.entries(fields)) {
						if (!CHOICES.includes(c as Choice)) {
							throw badRequest(`Field '${f}': the choice must be 'ours' or 'theirs'`);
						}
						picked[f] = c as Choice;
					}
				} else {
					throw badRequest('Send {"choice": "ours"} or {"choice": "theirs"}, or {"fields": {…}}');
				}
				if (!(await mirror.resolve(keyOf(params), picked))) {
					throw new HttpError(409, 'This change has no conflict to decide (any more)');
				}
				sendResource(ex, 200, await statusResource(api, repo, await mirror.status()));
			}
		},
		{
			re: /^\/api\/v1\/upstream\/entries\/(dogRun|run)-(\d+)\/retry$/,
			async post(ex, { repo, api, params }) {
				if (!(await mirror.retry(keyOf(params)))) {
					throw new HttpError(409, 'This change was not refused: it is sent by itself');
				}
				sendResource(ex, 200, await statusResource(api, repo, await mirror.status()));
			}
		}
	];
}
