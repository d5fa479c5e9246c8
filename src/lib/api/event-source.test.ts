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
});
