// The connection of a PostgreSQL store that listens (LISTEN) to the notices of every instance.
// When it breaks (a database restart, a network blip, an administrator's pg_terminate_backend),
// one reconnection loop makes a new one, with backoff, and has the store read what it missed.
import type pg from 'pg';

export interface ListenerHooks {
	/** The channels listened to. */
	channels: readonly string[];
	onNotice(n: pg.Notification): void;
	/** After a reconnection: reads what was missed meanwhile (a failure is the hook's to report). */
	missed(): void;
	/**
	 * After a reconnection: announces again what must not be missed (revocations); a failure is
	 * retried with backoff, as long as the new connection listens.
	 */
	announce(): Promise<void>;
	logError(line: string): void;
}

export class Listener {
	#client: pg.Client;
	readonly #newClient: () => pg.Client;
	readonly #hooks: ListenerHooks;
	#closed = false;
	/** The reconnection loop is running. */
	#reconnecting = false;
	/** The listening connection broke again while the loop was running. */
	#lostAgain = false;
	/** The reconnection loop running (close() waits for it). */
	#relistening: Promise<void> | null = null;
	/** Ends the loop's current wait at once (close). */
	#wakeUp: (() => void) | null = null;

	/** `first`: a connected client; `newClient`: a new (unconnected) one for each reconnection. */
	constructor(first: pg.Client, newClient: () => pg.Client, hooks: ListenerHooks) {
		this.#client = first;
		this.#newClient = newClient;
		this.#hooks = hooks;
	}

	/** Listens on the first connection. */
	start(): Promise<void> {
		return this.#attach(this.#client);
	}

	/** Stops reconnecting (at once) and ends the connection. */
	async close(): Promise<void> {
		this.#closed = true;
		this.#wakeUp?.();
		await this.#relistening;
		await this.#client.end().catch(() => {});
	}

	#pause(ms: number): Promise<void> {
		return new Promise((resolve) => {
			const timer = setTimeout(resolve, ms);
			this.#wakeUp = () => {
				clearTimeout(timer);
				resolve();
			};
		});
	}

	async #attach(client: pg.Client): Promise<void> {
		const trouble = (e?: unknown): void => {
			if (this.#closed || client !== this.#client) return;
			if (this.#reconnecting) {
				this.#lostAgain = true;
				return;
			}
			this.#reconnecting = true;
			this.#hooks.logError(
				JSON.stringify({ msg: 'postgres listener lost; reconnecting', error: String(e ?? 'end') })
			);
			this.#relistening = this.#relisten().finally(() => {
				this.#reconnecting = false;
				this.#relistening = null;
			});
		};
		client.on('notification', (n) => this.#hooks.onNotice(n));
		client.on('error', trouble);
		client.on('end', () => trouble());
		for (const channel of this.#hooks.channels) await client.query(`LISTEN ${channel}`);
	}

	/** A connection that no longer listens for this store (its 'error' handler stays). */
	#retire(client: pg.Client): void {
		client.removeAllListeners('notification');
		void client.end().catch(() => {});
	}

	/**
	 * The one reconnection loop (`reconnecting` until it ends; a connection lost meanwhile sets
	 * `lostAgain` instead of starting another). A failed announcement is made again: a connection
	 * that listens is never given up for it.
	 */
	async #relisten(): Promise<void> {
		let delay = 100;
		while (!this.#closed) {
			await this.#pause(delay);
			delay = Math.min(delay * 2, 5_000);
			if (this.#closed) return;
			const client = this.#newClient();
			try {
				await client.connect();
				if (this.#closed) {
					await client.end().catch(() => {});
					return;
				}
				this.#retire(this.#client);
				this.#client = client;
				this.#lostAgain = false;
				await this.#attach(client);
			} catch (e) {
				this.#hooks.logError(JSON.stringify({ msg: 'postgres listener', error: String(e) }));
				this.#retire(client);
				continue;
			}
			this.#hooks.missed();
			let announced = false;
			for (let wait = 100; !this.#closed && !this.#lostAgain && !announced;) {
				try {
					await this.#hooks.announce();
					announced = true;
				} catch (e) {
					this.#hooks.logError(
						JSON.stringify({ msg: 'postgres listener catch-up', error: String(e) })
					);
					await this.#pause(wait);
					wait = Math.min(wait * 2, 5_000);
				}
			}
			if (!this.#lostAgain) return;
			delay = 100;
		}
	}
}
