import { untrack } from 'svelte';
import {
	OPEN_PUBLICATION,
	resultsShown,
	STRICT_PUBLICATION,
	type Publication
} from '$lib/contract/publication';
import { storedCheckIns, type StoredCheckIn } from '$lib/db/check-in-store';
import { storedPublication } from '$lib/db/publication-store';
import type { CompetitionRow, RunRow } from '$lib/db/db';
import * as queries from '$lib/db/queries';
import { ringRunsUntil, type RingRun, type RingRuns } from '$lib/db/ring-queries';
import type { EntriesByKey } from '$lib/db/keys';
import { fetchDogRuns, fetchRuns } from '$lib/sync/browse';
import { fetchPublication, hasPublication } from '$lib/sync/publication';
import { serviceClient } from '../browser/service-client';
import { publicRanking, ringBoard, type Board, type PublicRanking } from '../view/board';
import { publicRing, type PublicRing } from '../view/public-view';
import { clock } from './clock.svelte';
import { connectivity } from './connectivity.svelte';
import { Live } from './live.svelte';
import { live, watchStored } from './live-updates.svelte';

/** Nothing unsent: what the screen starts from (never written to). */
const NO_ENTRIES: EntriesByKey = new Map();
/** No gate marks: what the screen starts from (never written to). */
const NO_MARKS: ReadonlyMap<number, StoredCheckIn> = new Map();

export interface RingWatchOptions {
	/** When the ring's runs read so far (in order) are enough for the screen. */
	enough: (runs: readonly RingRun[], entries: EntriesByKey) => boolean;
	/** Of the runs read with no dog runs on the device, those to read from the service. */
	toRead?: (missing: readonly RunRow[]) => readonly RunRow[];
	/** More runs whose dogs the screen shows, kept current too (beyond the board's). */
	alsoWatched?: () => readonly number[];
	/**
	 * A public view (the big screen, the follow view): what it shows goes through the
	 * competition's settings of public views, as the device last heard them.
	 */
	public?: boolean;
}

/**
 * A ring as a screen that follows it shows it (the big screen, the spectators' view): the ring's
 * runs in order with their dogs as the device has them, and the board computed from them. Online,
 * the ring's runs are read once per visit and the dogs of the runs not on the device one run at a
 * time, each once (a phone that only knows the competition); the runs on screen are kept current
 * by live updates (the push link, else polling). Create during component initialisation.
 */
export class RingWatch {
	readonly competition: Live<CompetitionRow | undefined, number>;
	readonly stored: Live<RingRuns, { competitionId: number; ringId: number }>;
	/** The competition's settings of public views, as stored; null: none heard yet. */
	readonly storedPublication: Live<Publication | null, number>;
	/** The ring as the screen shows it: through the settings on a public view, else as stored. */
	readonly shown: PublicRing;
	/** What the public views apply now. */
	readonly publication: Publication;
	/** The gate's marks of the competition's dogs, as this device has them. */
	readonly checkIns: Live<ReadonlyMap<number, StoredCheckIn>, number>;
	/** Reads of the ring from the service under way (nothing of it may be on the device yet). */
	#reads = $state(0);
	readonly #public: boolean;
	/**
	 * Released runs read again for their results, with the settings they were read for (plain:
	 * nothing renders from it).
	 */
	readonly #released: string[] = [];

	/** What the ring's board shows now. */
	readonly board: Board;
	/** The ranking shown: the board's, or while its run waits for the release an earlier one's. */
	readonly ranking: PublicRanking;

	readonly #ids: () => { competitionId: number; ringId: number };
	/** Runs whose dog runs were asked for in this visit (plain: nothing renders from it). */
	readonly #tried: number[] = [];
	#runsRead = false;

	constructor(ids: () => { competitionId: number; ringId: number }, options: RingWatchOptions) {
		this.#ids = ids;
		this.#public = options.public === true;
		this.competition = new Live(
			() => ids().competitionId,
			(id) => queries.competition(id),
			undefined as CompetitionRow | undefined
		);
		this.stored = new Live(
			() => ({ ...ids() }),
			({ competitionId, ringId }) => ringRunsUntil(competitionId, ringId, options.enough),
			{ runs: [], entries: NO_ENTRIES, missing: [], ringRuns: 0 } as RingRuns
		);
		this.storedPublication = new Live(
			() => ids().competitionId,
			(id) => storedPublication(id),
			null as Publication | null
		);
		// A service without settings shows everything; one with settings not heard yet, nothing
		// that might be hidden (they are read first when online).
		this.publication = $derived.by((): Publication => {
			const stored = this.storedPublication.current;
			if (stored) return stored;
			const competition = this.competition.current?.data;
			return competition && !hasPublication(competition) ? OPEN_PUBLICATION : STRICT_PUBLICATION;
		});
		this.checkIns = new Live(
			() => ids().competitionId,
			(id): Promise<ReadonlyMap<number, StoredCheckIn>> => storedCheckIns(id),
			NO_MARKS
		);
		this.shown = $derived(
			options.public
				? publicRing(this.stored.current, this.publication)
				: { runs: this.stored.current.runs, entries: this.stored.current.entries }
		);
		this.board = $derived(ringBoard(this.shown.runs, this.shown.entries));
		this.ranking = $derived(
			publicRanking(this.shown.runs, this.shown.entries, this.board, this.publication)
		);
		this.#storedAt = $derived(
			this.stored.current.runs.reduce(
				(at, { run, dogRuns }) =>
					dogRuns.reduce((a, d) => Math.max(a, d.fetchedAt), Math.max(at, run.fetchedAt)),
				0
			)
		);

		$effect(() => {
			const row = this.competition.current;
			const missing = options.toRead
				? options.toRead(this.stored.current.missing)
				: this.stored.current.missing;
			const { ringId } = ids();
			if (!row || !connectivity.online || !this.stored.loaded) return;
			untrack(() => void this.#fill(row, ringId, missing));
		});

		// A run released since the device's copy of it was sent without its results (a viewer's):
		// read again, once per release, whether or not it is still on screen.
		$effect(() => {
			if (!this.#public) return;
			const p = this.publication;
			const row = this.competition.current;
			const key = (run: RunRow) => `${run.id}:${p.releasedRuns.join(',')}`;
			const withheld = this.stored.current.runs
				.filter(
					({ run, dogRuns }) => resultsShown(p, run.id) && dogRuns.some((d) => d.data.withheld)
				)
				.map(({ run }) => run)
				.filter((run) => !this.#released.includes(key(run)));
			if (!row || !connectivity.online || withheld.length === 0) return;
			for (const run of withheld) this.#released.push(key(run));
			untrack(() => void this.#readAgain(row, withheld));
		});

		// The runs on screen stay current while online (another device's results appear at once).
		const watched = $derived.by(() => {
			const ids = [
				...(this.board.run ? [this.board.run.id] : []),
				...this.board.next.map((d) => d.run.id),
				...(options.alsoWatched?.() ?? [])
			];
			return ids.filter((id, i) => ids.indexOf(id) === i).join(',');
		});
		$effect(() => {
			if (watched === '') return;
			return watchStored(ids().competitionId, watched.split(',').map(Number));
		});
	}

	async #fill(row: CompetitionRow, ringId: number, missing: readonly RunRow[]): Promise<void> {
		const todo = missing.filter((run) => !this.#tried.includes(run.id));
		if (this.#runsRead && todo.length === 0) return;
		// Failures leave the copy the screen has, shown with its age; live updates try again.
		const client = await serviceClient().catch(() => null);
		if (!client) return;
		this.#reads++;
		try {
			if (!this.#runsRead) {
				this.#runsRead = true;
				// A public view reads the settings it applies first.
				if (this.#public) await fetchPublication(client, row.data).catch(() => undefined);
				await fetchRuns(client, row, { ringId }).catch(() => undefined);
			}
			for (const run of todo) {
				if (this.#tried.includes(run.id)) continue;
				this.#tried.push(run.id);
				await fetchDogRuns(client, run.data, row.id).catch(() => undefined);
			}
		} finally {
			this.#reads--;
		}
	}

	async #readAgain(row: CompetitionRow, runs: readonly RunRow[]): Promise<void> {
		const client = await serviceClient().catch(() => null);
		if (!client) return;
		for (const run of runs) await fetchDogRuns(client, run.data, row.id).catch(() => undefined);
	}

	/** Reading the ring from the service now (nothing of it may be on the device yet). */
	get reading(): boolean {
		return this.#reads > 0;
	}

	readonly #storedAt: number;

	/** When the copy shown was last known current: the newest read of it, or of the runs on screen. */
	get updatedAt(): number | null {
		// Live updates note a read that found nothing new in a plain field: read on each tick.
		void clock.now;
		const at = Math.max(this.#storedAt, live.lastUpdateAt ?? 0, live.updates.lastUpdateAt ?? 0);
		return at > 0 ? at : null;
	}

	/** The copy is kept current: the device online and the results service answering. */
	get connected(): boolean {
		return (
			connectivity.online &&
			connectivity.state !== 'unreachable' &&
			connectivity.state !== 'offline'
		);
	}

	/** The gate's mark of a dog run: present, not presented, or none. */
	checkInOf(dogRunId: number): StoredCheckIn['status'] {
		const mark = this.checkIns.current.get(dogRunId);
		// A mark the service refused is this device's alone: not shown as the dog's.
		return mark && !mark.refused ? mark.status : null;
	}

	get ringName(): string {
		const { ringId } = this.#ids();
		return this.competition.current?.data.rings.find((r) => r.id === ringId)?.name ?? '';
	}
}
