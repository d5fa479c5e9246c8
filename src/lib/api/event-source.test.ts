import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLOSED, CONNECTING, FetchEventSource, OPEN } from './event-source';

afterEach(() => {
	vi.useRealTimers();
});

/** A stream the test writes to, as a service's open event stream. */
function stream() {
	let controller!: ReadableStreamDefaultController<Uint8Array>;
	const body = new ReadableStream<Uint8Array>({ start: (c) => (controller = c) });
	const encoder = new TextEncoder();
	return {
		body,
		write: (text: string) => controller.enqueue(encoder.encode(text)),
		end: () => controller.close()
	};
}

const eventStream = (body: ReadableStream<Uint8Array>) =>
	new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('FetchEventSource', () => {
	it('sends the credential, opens, and delivers named events split across reads', async () => {
		const s = stream();
		const calls: RequestInit[] = [];
		const source = new FetchEventSource('http://svc/api/v1/competitions/1/changes', {
			authorization: async () => 'Bearer abc',
			fetch: async (_url, init) => {
				calls.push(init);
				return eventStream(s.body);
			}
		});
		const seen: string[] = [];
		source.addEventListener('timing', (e) => seen.push(`${e.type}:${e.data}:${e.lastEventId}`));
		let opened = false;
		source.onopen = () => (opened = true);
		await tick();
		expect(new Headers(calls[0]?.headers).get('Authorization')).toBe('Bearer abc');
		expect(opened).toBe(true);
		expect(source.readyState).toBe(OPEN);
		s.write(': hello\r\nid: 7\r\nevent: tim');
		s.write('ing\r\ndata: {"type":"stop",\r\ndata: "elapsed":3863}\r');
		s.write('\n\r\n');
		await tick();
		await tick();
		expect(seen).toEqual(['timing:{"type":"stop",\n"elapsed":3863}:7']);
		source.close();
		expect(source.readyState).toBe(CLOSED);
	});

	it('reconnects a dropped stream after the retry delay, with Last-Event-ID', async () => {
		const first = stream();
		const second = stream();
		const calls: Headers[] = [];
		const bodies = [first.body, second.body];
		const source = new FetchEventSource('http://svc/s', {
			retryMs: 10,
			fetch: async (_url, init) => {
				calls.push(new Headers(init.headers));
				return eventStream(bodies.shift()!);
			}
		});
		const errors: number[] = [];
		source.onerror = () => errors.push(source.readyState);
		await tick();
		first.write('retry: 20\nid: 41\ndata: x\n\n');
		first.end();
		await new Promise((r) => setTimeout(r, 60));
		expect(errors).toEqual([CONNECTING]);
		expect(calls).toHaveLength(2);
		expect(calls[1]?.get('Last-Event-ID')).toBe('41');
		expect(source.readyState).toBe(OPEN);
		source.close();
	});

	it('gives up, as EventSource does, on a refusal or an answer that is not an event stream', async () => {
		for (const answer of [
			new Response('{"status":401}', {
				status: 401,
				headers: { 'Content-Type': 'application/json' }
			}),
			new Response('<html>', { status: 200, headers: { 'Content-Type': 'text/html' } })
		]) {
			let calls = 0;
			const source = new FetchEventSource('http://svc/s', {
				retryMs: 5,
				fetch: async () => {
					calls++;
					return answer;
				}
			});
			let errored = false;
			source.onerror = () => (errored = true);
			await new Promise((r) => setTimeout(r, 30));
			expect(errored).toBe(true);
			expect(source.readyState).toBe(CLOSED);
			expect(calls).toBe(1);
		}
	});

	it('retries when the service cannot be reached, and stops for good on close()', async () => {
		let calls = 0;
		const source = new FetchEventSource('http://svc/s', {
			retryMs: 5,
			fetch: async () => {
				calls++;
				throw new TypeError('Failed to fetch');
			}
		});
		await new Promise((r) => setTimeout(r, 40));
		expect(calls).toBeGreaterThan(1);
		expect(source.readyState).toBe(CONNECTING);
		source.close();
		const after = calls;
		await new Promise((r) => setTimeout(r, 30));
		expect(calls).toBe(after);
	});

	it('keeps reading when a listener throws, and reports the error', async () => {
		const s = stream();
		const reported: unknown[] = [];
		vi.stubGlobal('reportError', (e: unknown) => reported.push(e));
		let calls = 0;
		const source = new FetchEventSource('http://svc/s', {
			fetch: async () => {
				calls++;
				return eventStream(s.body);
			}
		});
		const seen: string[] = [];
		source.addEventListener('message', (e) => {
			seen.push(e.data);
			if (e.data === 'boom') throw new Error('a screen failed');
		});
		let errors = 0;
		source.onerror = () => errors++;
		await tick();
		s.write('data: boom\n\ndata: after\n\n');
		await tick();
		await tick();
		expect(seen).toEqual(['boom', 'after']);
		expect(reported).toHaveLength(1);
		expect(errors).toBe(0);
		expect(calls).toBe(1);
		expect(source.readyState).toBe(OPEN);
		source.close();
		vi.unstubAllGlobals();
	});

	it('tries a busy service again after its Retry-After, and says which answer it was', async () => {
		const s = stream();
		const answers = [
			new Response('busy', { status: 503, headers: { 'Retry-After': '0' } }),
			eventStream(s.body)
		];
		const source = new FetchEventSource('http://svc/s', {
			retryMs: 5,
			fetch: async () => answers.shift()!
		});
		await vi.waitFor(() => expect(source.readyState).toBe(OPEN), { timeout: 2_000 });
		expect(source.status).toBe(200);
		source.close();
	});

	it('resumes from an id given in a block without data', async () => {
		const first = stream();
		const calls: Headers[] = [];
		const bodies = [first.body, stream().body];
		const source = new FetchEventSource('http://svc/s', {
			retryMs: 5,
			fetch: async (_url, init) => {
				calls.push(new Headers(init.headers));
				return eventStream(bodies.shift()!);
			}
		});
		await tick();
		first.write('id: 5\ndata: x\n\nid: 9\n\n');
		first.end();
		await vi.waitFor(() => expect(calls).toHaveLength(2), { timeout: 2_000 });
		expect(calls[1]?.get('Last-Event-ID')).toBe('9');
		source.close();
	});

	it('takes a silent connection for dead and makes it again', async () => {
		const bodies = [stream().body, stream().body];
		let calls = 0;
		const source = new FetchEventSource('http://svc/s', {
			retryMs: 5,
			idleMs: 20,
			fetch: async () => {
				calls++;
				return eventStream(bodies.shift() ?? stream().body);
			}
		});
		await vi.waitFor(() => expect(calls).toBeGreaterThanOrEqual(2), { timeout: 2_000 });
		source.close();
	});
});

describe('FetchEventSource and the service’s reachability', () => {
	it('tells the observer each answer, each failure and that data keeps arriving', async () => {
		const s = stream();
		const answers: Array<() => Promise<Response>> = [
			async () => {
				throw new TypeError('Failed to fetch');
			},
			async () => new Response('busy', { status: 503, headers: { 'Retry-After': '0' } }),
			async () => eventStream(s.body)
		];
		const contacts: string[] = [];
		const source = new FetchEventSource('http://svc/s', {
			retryMs: 1,
			fetch: () => answers.shift()!(),
			observe: (c) => contacts.push(`${c.status ?? c.code}`)
		});
		for (let i = 0; i < 20 && source.readyState !== OPEN; i++) {
			await new Promise((r) => setTimeout(r, 5));
		}
		s.write(': heartbeat\n\n');
		await tick();
		await tick();
		expect(contacts).toEqual(['network', '503', '200', '200']);
		source.close();
	});

	it('takes a silent connection for no contact', async () => {
		const s = stream();
		const contacts: string[] = [];
		const source = new FetchEventSource('http://svc/s', {
			idleMs: 20,
			retryMs: 10_000,
			fetch: async () => eventStream(s.body),
			observe: (c) => contacts.push(`${c.status ?? c.code}`)
		});
		await new Promise((r) => setTimeout(r, 60));
		expect(contacts).toEqual(['200', 'timeout']);
		source.close();
	});

	it('waits before reconnecting at least as long as the backoff policy says', async () => {
		vi.useFakeTimers();
		let calls = 0;
		const source = new FetchEventSource('http://svc/s', {
			retryMs: 100,
			fetch: async () => {
				calls++;
				return new Response('busy', { status: 503 });
			},
			reconnectDelayMs: () => 30_000
		});
		await vi.advanceTimersByTimeAsync(29_000);
		expect(calls).toBe(1);
		await vi.advanceTimersByTimeAsync(1_100);
		expect(calls).toBe(2);
		source.close();
	});
});
