// Where /api answers come from: the upstream (proxy mode), or the local service's data, opened
// here with everything built on it (push channel, timer bridge, devices and auth, write guards,
// ETags) and wired to what its store delivers once committed.
import { createAuth, type Auth } from './auth/auth.ts';
import { DeviceStore } from './devices/devices.ts';
import { createDiskGuard } from './middleware/disk-guard.ts';
import { createEtags } from './middleware/etag.ts';
import { StreamRegistry } from './middleware/event-stream.ts';
import type { Exchange, Step } from './middleware/exchange.ts';
import type { PutLog } from './middleware/put-log.ts';
import { createReadBudget } from './middleware/read-budget.ts';
import { localAuthMode, type ServiceOptions } from './options.ts';
import { MAX_UPSTREAM_BODY_BYTES } from './proxy/proxy.ts';
import { createPush, PUSH_DEFAULTS, type Push } from './push/push.ts';
import { allPublications } from './store/publication-table.ts';
import { Repository } from './store/repository.ts';
import { createApiSteps, type ApiSteps } from './routes/router.ts';
import { createUpstreamForwarder } from './routes/upstream.ts';
import { localToday } from './seed/dates.ts';
import type { SeedSummary } from './seed/seed.ts';
import { openStore } from './store/open.ts';
import type { Store } from './store/store.ts';
import { importProblem } from './mirror/import-problem.ts';
import { createMirror, type Mirror } from './mirror/mirror.ts';
import { mirrorRoutes } from './routes/mirror.ts';
import { createTimers, parseTimerSettings, resolveTimers, type Timers } from './timer/timer.ts';

/** Where /api answers come from: the upstream (proxy mode) or the database (opened here). */
export interface Backend {
	store: Store | null;
	seeded: SeedSummary | null;
	/** The steps that answer /api after the common ones (pipeline.ts). */
	api: ApiSteps | { forward: Step };
	/** The push channel of the local service; null when off or in proxy mode. */
	push: Push | null;
	/** The upstream's event streams passed through (proxy mode). */
	proxyStreams: StreamRegistry | null;
	/** The timer bridge; null without timers (and in proxy mode). */
	timers: Timers | null;
	/** Who may do what; null in proxy mode. */
	auth: Auth | null;
	/** Mirror mode's publisher and puller; null otherwise. */
	mirror: Mirror | null;
}

/** Mirror mode: the upstream's competitions read into an empty database (first start only). */
async function openMirror(
	store: Store,
	options: ServiceOptions,
	log: ((line: string) => void) | null,
	logError: (line: string) => void
): Promise<Mirror> {
	const mirror = createMirror(
		store,
		{
			upstream: options.mirror!,
			competitionIds: options.mirrorCompetitions ?? null,
			...(options.mirrorPullMs !== undefined ? { pullIntervalMs: options.mirrorPullMs } : {}),
			...(options.mirrorFetch ? { fetch: options.mirrorFetch } : {}),
			...(options.mirrorAuthorization ? { authorization: options.mirrorAuthorization } : {}),
			...(options.seedDate ? { today: () => options.seedDate! } : {})
		},
		logError
	);
	const today = options.seedDate ?? localToday();
	const imported = await mirror
		.prepare(today, (line) => log?.(line))
		.catch(async (e: unknown) => {
			await mirror.close();
			throw new Error(importProblem(e, options.mirror!), { cause: e });
		});
	if (imported) {
		log?.(
			`Mirrored ${imported.competitions} competitions, ${imported.runs} runs, ` +
				`${imported.dogRuns} dog runs from ${options.mirror} in ${imported.ms} ms`
		);
	}
	return mirror;
}

/** Opens the backend; the database it opened is closed again when opening fails further on. */
export async function openBackend(
	options: ServiceOptions,
	upstream: string | null,
	putLogOf: (store: Store | null) => PutLog,
	log: ((line: string) => void) | null,
	logError: (line: string) => void
): Promise<Backend> {
	if (upstream) {
		const timeoutMs = options.upstreamTimeoutMs ?? 15000;
		const maxBodyBytes = options.upstreamMaxBytes ?? MAX_UPSTREAM_BODY_BYTES;
		const proxyStreams = new StreamRegistry(PUSH_DEFAULTS.maxStreams);
		const forward = createUpstreamForwarder({ upstream, timeoutMs, maxBodyBytes }, proxyStreams);
		const api = { forward: (ex: Exchange) => forward(ex) };
		return {
			store: null,
			seeded: null,
			api,
			push: null,
			proxyStreams,
			timers: null,
			auth: null,
			mirror: null
		};
	}
	const { store, seeded } = await openStore({
		...(options.dbFile !== undefined ? { dbFile: options.dbFile } : {}),
		...(options.databaseUrl !== undefined ? { databaseUrl: options.databaseUrl } : {}),
		reset: options.reset === true,
		// A mirror's database is filled from the upstream, never seeded.
		seed: options.mirror ? null : (options.seed ?? 'realistic'),
		seedDate: options.seedDate ?? localToday(),
		poolSize: options.poolSize ?? 10,
		logError
	});
	try {
		const pushOptions = typeof options.push === 'object' ? options.push : {};
		// The push channel's feed starts with the changes the store kept (a shared database's).
		const bufferSize = pushOptions.bufferSize ?? PUSH_DEFAULTS.bufferSize;
		const push =
			options.push === false
				? null
				: createPush(
						pushOptions,
						{ feed: store.feed, recent: await store.feed.recent(bufferSize) },
						options.latencyMs ?? 0
					);
		const repo = new Repository(store.sql);
		// The rings are checked before anything connects; the connections start last.
		const timerRings = await resolveTimers(repo, parseTimerSettings(options.timer));
		const guards = {
			putLog: putLogOf(store),
			beforeWrite: createDiskGuard(store.dataDir, options.minFreeBytes, options.freeSpace),
			readBudget: options.readBudget === false ? null : createReadBudget(options.readBudget ?? {})
		};
		const timers =
			timerRings.length === 0
				? null
				: createTimers(timerRings, options.timerOptions ?? {}, log, options.latencyMs ?? 0);
		const auth = createAuth({
			mode: localAuthMode(options),
			openReads: options.openReads === true,
			store: new DeviceStore(store, options.clock),
			logError,
			...(options.failureLimit !== undefined ? { failureLimit: options.failureLimit } : {}),
			...(options.clock ? { now: options.clock } : {})
		});
		// What the store delivers once committed: changes to the streams, revocations to auth.
		if (push) {
			store.feed.onChange((c) => push.deliver(c));
			// Read once the feed is heard: a change of the settings committed meanwhile is either
			// in what is read or delivered after it (and then kept over it).
			push.loadPublications(await allPublications(store.sql));
		}
		store.feed.onRevoked((id) => auth.revoked(id));
		const etags = createEtags(options.etag === true);
		const mirror = options.mirror ? await openMirror(store, options, log, logError) : null;
		const mirrorParts = mirror
			? { routes: mirrorRoutes(mirror), recordChange: mirror.recordChange }
			: null;
		const api = createApiSteps({ store, etags, push, guards, timers, auth, mirror: mirrorParts });
		mirror?.start();
		return { store, seeded, api, push, proxyStreams: null, timers, auth, mirror };
	} catch (e) {
		await store.close();
		throw e;
	}
}
